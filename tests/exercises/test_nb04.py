"""The checkers of notebook 04, where ctx comes from (``minigrad/exercises/nb04.py``): right answers
written several ways, and the wrong answers students write, each with the verdict it must give
in English and in Chinese."""
from __future__ import annotations

import minigrad as torch
from minigrad.exercises import nb04

from exercise_helpers import function, run, verdict_tests


# =========================================================================== 04, Your turn 1
class AddConstant(torch.autograd.Function):
    @staticmethod
    def forward(tensor, constant):
        return tensor + constant

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.constant = inputs[1]

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None


def add_constant_variant(name="AddConstant", *, forward=None, setup_context=True, backward=None,
                         combined=False):
    """A variant of the worked solution with one part replaced."""
    namespace = {}
    if combined:
        namespace["forward"] = staticmethod(forward or (lambda ctx, tensor, constant: tensor + constant))
    else:
        namespace["forward"] = staticmethod(forward or (lambda tensor, constant: tensor + constant))
    if setup_context:
        namespace["setup_context"] = staticmethod(lambda ctx, inputs, output: None)
    namespace["backward"] = staticmethod(backward or (lambda ctx, grad: (grad, None)))
    return type(name, (torch.autograd.Function,), namespace)


# (checker, answer, what the problem line says); None: accepted. CASES, at the end, gathers them.
TURN_1 = [(nb04.your_turn_1, answer, problem) for answer, problem in [
    (AddConstant, None),                 # the separate style
    (add_constant_variant(), None),      # a setup_context that stores nothing
    (add_constant_variant(combined=True, setup_context=False), "AddConstant has no setup_context"),
    (add_constant_variant(combined=True), "forward takes (ctx, tensor, constant)"),
    (add_constant_variant(backward=lambda ctx, grad: (grad * 2.5, None)), "x.grad is [2.5, 25.0, 250.0]"),
    (add_constant_variant(backward=lambda ctx, grad: grad),
     "returned an incorrect number of gradients (expected 2, got 1)"),
    (add_constant_variant(backward=lambda ctx, grad: (grad, grad)),
     "returned a gradient different than None at position 2"),
    (add_constant_variant(forward=lambda tensor, constant: None), "apply returned NoneType, not a tensor"),
    (add_constant_variant(forward=lambda tensor, constant: (tensor * 1 + constant * 2)),
     "AddConstant.apply([1, -2, 0.5], 2.5) gave"),
    (add_constant_variant("PlusConstant"), "the class is called PlusConstant"),
    (int, "is not a class derived from torch.autograd.Function"),
    (add_constant_variant(backward=lambda ctx, grad: (torch.ones_like(grad), None)),
     "with an incoming gradient [1, 10, 100], x.grad is [1.0, 1.0, 1.0]"),
]]


def test_nb04_turn1_reports_the_node_name(capsys):
    ok, out = run(nb04.your_turn_1, add_constant_variant(), capsys)
    assert ok, out
    y = add_constant_variant().apply(torch.ones(2, requires_grad=True), 1.0)
    assert y.grad_fn.name() == "AddConstantBackward"


# =========================================================================== 04, Your turn 2
def my_apply(cls, *args):
    ctx = cls._backward_cls()
    ctx.needs_input_grad = tuple(isinstance(arg, torch.Tensor) and arg.requires_grad for arg in args)
    with torch.no_grad():
        output = cls.forward(ctx, *args)
    return output, ctx


def plain_ctx(cls, *args):
    ctx = torch.autograd.function.FunctionCtx()
    ctx.needs_input_grad = tuple(isinstance(arg, torch.Tensor) and arg.requires_grad for arg in args)
    with torch.no_grad():
        return cls.forward(ctx, *args), ctx


def needs_set_after_forward(cls, *args):
    ctx = cls._backward_cls()
    with torch.no_grad():
        output = cls.forward(ctx, *args)
    ctx.needs_input_grad = tuple(isinstance(arg, torch.Tensor) and arg.requires_grad for arg in args)
    return output, ctx


def requires_grad_of_numbers(cls, *args):
    ctx = cls._backward_cls()
    ctx.needs_input_grad = tuple(arg.requires_grad for arg in args)
    with torch.no_grad():
        return cls.forward(ctx, *args), ctx


def needs_as_list(cls, *args):
    ctx = cls._backward_cls()
    ctx.needs_input_grad = [isinstance(arg, torch.Tensor) and arg.requires_grad for arg in args]
    with torch.no_grad():
        return cls.forward(ctx, *args), ctx


def is_tensor_only(cls, *args):
    ctx = cls._backward_cls()
    ctx.needs_input_grad = tuple(isinstance(arg, torch.Tensor) for arg in args)
    with torch.no_grad():
        return cls.forward(ctx, *args), ctx


def grad_mode_on(cls, *args):
    ctx = cls._backward_cls()
    ctx.needs_input_grad = tuple(isinstance(arg, torch.Tensor) and arg.requires_grad for arg in args)
    return cls.forward(ctx, *args), ctx


SHARED_CTX = []


def one_ctx_for_all_calls(cls, *args):
    if not SHARED_CTX:
        SHARED_CTX.append(cls._backward_cls())
    ctx = SHARED_CTX[0]
    ctx.needs_input_grad = tuple(isinstance(arg, torch.Tensor) and arg.requires_grad for arg in args)
    with torch.no_grad():
        return cls.forward(ctx, *args), ctx


def placeholder(cls, *args):
    ctx = ...
    return None, ctx


TURN_2 = [(nb04.your_turn_2, answer, problem) for answer, problem in [
    (my_apply, None),                    # the worked solution
    (plain_ctx, "ctx is a plain FunctionCtx"),
    (needs_set_after_forward, "inside forward, ctx.needs_input_grad was ()"),
    (requires_grad_of_numbers, "'float' object has no attribute 'requires_grad'"),
    (is_tensor_only, "ctx.needs_input_grad is (True, False), the real apply gives (False, False)"),
    (grad_mode_on, "the output has a grad_fn (MulBackward0)"),
    (one_ctx_for_all_calls, "two calls returned the same ctx object"),
    (placeholder, "ctx is still ..."),
    (lambda cls, *args: None, "my_apply returned None"),
]]


# =========================================================================== 04, Your turn 3
def scale_shift(unpack_all=True, slots=3, use_grad=True, keep_scale=True):
    """A ScaleShift in the separate style, right or with one of the mistakes students make."""
    def forward(tensor, scale=2.0, shift=0.0):
        return tensor * scale + shift

    def setup_context(ctx, inputs, output):
        if unpack_all:
            tensor, scale, shift = inputs
        else:
            tensor, scale = inputs          # the starter: forgets that defaults are filled in
        ctx.scale = scale if keep_scale else 2.0

    def backward(ctx, grad_output):
        grad = grad_output * ctx.scale if use_grad else torch.ones(3) * ctx.scale
        return (grad, None, None)[:slots] if slots > 1 else grad

    return type("ScaleShift", (torch.autograd.Function,),
                {"forward": staticmethod(forward), "setup_context": staticmethod(setup_context),
                 "backward": staticmethod(backward)})


TURN_3 = [(nb04.your_turn_3, answer, problem) for answer, problem in [
    (scale_shift(), None),
    (scale_shift(unpack_all=False), "setup_context failed: ValueError: too many values to unpack"),
    (scale_shift(slots=1), "returned an incorrect number of gradients (expected 3, got 1)"),
    (scale_shift(slots=2), "returned an incorrect number of gradients (expected 3, got 2)"),
    (scale_shift(use_grad=False), "so backward ignores grad_output"),
    (scale_shift(keep_scale=False), "ScaleShift.apply(x, 3.0, shift=1.0): with an incoming gradient"),
]]


# --------------------------------------------------------------------------- more answers students write
def add_constant(forward, backward=lambda ctx, g: (g, None), setup_context=lambda ctx, inputs, output: None):
    return function("AddConstant", forward, backward, setup_context)


def keeps_the_input(ctx, inputs, output):
    ctx.t = inputs[0]


def apply_by_hand(cls, *args):
    ctx = cls._backward_cls()
    ctx.needs_input_grad = tuple(isinstance(a, torch.Tensor) and a.requires_grad for a in args)
    with torch.no_grad():
        return cls.forward(ctx, *args), ctx


def apply_with(needs=lambda a: isinstance(a, torch.Tensor) and a.requires_grad, node_class=lambda cls: cls._backward_cls):
    """A my_apply whose needs_input_grad and node class are computed the way a learner wrote them."""
    def apply_by_hand(cls, *args):
        ctx = node_class(cls)()
        ctx.needs_input_grad = tuple(needs(a) for a in args)
        with torch.no_grad():
            return cls.forward(ctx, *args), ctx
    return apply_by_hand


leaves_only_apply = apply_with(lambda a: isinstance(a, torch.Tensor) and a.is_leaf and a.requires_grad)


private_flag_apply = apply_with(lambda a: isinstance(a, torch.Tensor) and a._requires_grad)


hand_made_node_apply = apply_with(node_class=lambda cls: type(cls.__name__ + "Backward",
                                                              (cls._backward_cls.__bases__[0],), {}))


def scale_shift_function(forward, backward=lambda ctx, g: (g * ctx.scale, None, None)):
    def setup_context(ctx, inputs, output):
        _, ctx.scale, _ = inputs
    return function("ScaleShift", forward, backward, setup_context)


# --------------------------------------------------------------------------- more answers students write
def calls_the_real_apply(cls, *args):
    out = cls.apply(*args)
    ctx = out.grad_fn
    if ctx is None:
        return apply_by_hand(cls, *args)
    return out.detach(), ctx


def needs(args):
    return tuple(isinstance(a, torch.Tensor) and a.requires_grad for a in args)


def detaches_the_output(cls, *args):
    ctx = cls._backward_cls()
    ctx.needs_input_grad = needs(args)
    return cls.forward(ctx, *args).detach(), ctx


def detaches_the_inputs(cls, *args):
    ctx = cls._backward_cls()
    ctx.needs_input_grad = needs(args)
    return cls.forward(ctx, *[a.detach() if isinstance(a, torch.Tensor) else a for a in args]), ctx


def keeps_all_inputs(ctx, inputs, output):
    ctx.inputs = inputs


def scale_shift_forward(tensor, scale=2.0, shift=0.0):
    return tensor * scale + shift


def scale_on_the_class(ctx, inputs, output):
    ScaleOnTheClass.scale = inputs[1]


ScaleOnTheClass = function("ScaleShift", scale_shift_forward,
                           lambda ctx, g: (g * ScaleOnTheClass.scale, None, None), scale_on_the_class)


def scale_on_the_saved_input(ctx, inputs, output):
    inputs[0].scale_ = inputs[1]
    ctx.save_for_backward(inputs[0])


def backward_from_the_saved_input(ctx, grad_output):
    x, = ctx.saved_tensors
    return grad_output * x.scale_, None, None

def grad_mode_left_off(cls, *args):
    """Right but for one thing: grad mode is turned off for good."""
    ctx = cls._backward_cls()
    ctx.needs_input_grad = tuple(isinstance(a, torch.Tensor) and a.requires_grad for a in args)
    torch.set_grad_enabled(False)
    return cls.forward(ctx, *args), ctx


# The Chinese hint of this one quotes code, tuple(... for arg in args), outside backticks, and the
# test of the Chinese verdict takes those words for English.
ENGLISH_ONLY = [(nb04.your_turn_2, needs_as_list, "ctx.needs_input_grad is list, not a tuple")]


CASES = TURN_1 + TURN_2 + TURN_3 + [
    (nb04.your_turn_1, add_constant(lambda tensor, constant: tensor.add_(constant)),
     "AddConstant.apply(x, 2.5) changed the caller's x in place"),
    (nb04.your_turn_1, add_constant(lambda tensor, constant: tensor.clone().add_(constant)), None),
    (nb04.your_turn_1, add_constant(lambda t, c: t + c, lambda ctx, g: (g, None, None)), None),
    (nb04.your_turn_1, add_constant(lambda t, c: t + c, lambda ctx, g: (g, None, g)), "incorrect number of gradients"),
    (nb04.your_turn_1, add_constant(lambda t, c: t + c, lambda ctx, g: g), "incorrect number of gradients (expected 2, got 1)"),
    (nb04.your_turn_1, add_constant(lambda t, c: t + c, setup_context=keeps_the_input),
     "setup_context keeps a tensor as a plain attribute, ctx.t"),
    (nb04.your_turn_2, leaves_only_apply, "a tensor that is not a leaf needs a gradient too"),
    (nb04.your_turn_2, private_flag_apply, "a tensor that is not a leaf needs a gradient too"),
    (nb04.your_turn_2, hand_made_node_apply, "ctx is an instance of a class you made yourself, also named ProbeBackward"),
    (nb04.your_turn_3, scale_shift_function(lambda tensor, scale=2.0, shift=0.0: tensor * scale + shift,
                                   lambda ctx, g: (g * ctx.scale, 0, 0)),
     "scale and shift are numbers, not tensors"),
    (nb04.your_turn_2, lambda cls, *args: list(apply_by_hand(cls, *args)), None),
    (nb04.your_turn_2, lambda cls, *args: apply_by_hand(cls, *args)[::-1], "my_apply returned the pair in the wrong order"),
    (nb04.your_turn_3, scale_shift_function(lambda tensor, scale=2.0, shift=0.0: tensor.mul_(scale).add_(shift)),
     "ScaleShift.apply(x) changed the caller's x in place"),
    (nb04.your_turn_3, ScaleOnTheClass, "backward used the scale of another call"),
    (nb04.your_turn_3, function("ScaleShift", scale_shift_forward, backward_from_the_saved_input,
                                scale_on_the_saved_input), "backward used the scale of another call"),
    (nb04.your_turn_2, calls_the_real_apply, "my_apply calls cls.apply, the real apply"),
    (nb04.your_turn_2, detaches_the_output, "forward ran with grad mode on"),
    (nb04.your_turn_2, detaches_the_inputs, "forward ran with grad mode on"),
    (nb04.your_turn_1, function("AddConstant", lambda t, c: t + c, lambda ctx, g: (g, None), keeps_all_inputs),
     "setup_context keeps a tensor as a plain attribute, ctx.inputs[0]"),
    # grad mode turned off and never turned back on
    (nb04.your_turn_2, grad_mode_left_off, "grad mode is still off: my_apply turned it off"),
]

test_each_answer_gets_the_right_verdict, test_the_chinese_verdict_is_the_same_and_wholly_chinese = verdict_tests(CASES, ENGLISH_ONLY)


def test_nb04_an_apply_leaving_grad_mode_off_does_not_fail_the_next_exercise(capsys):
    """The check turns grad mode back on, so that a right ScaleShift is accepted after it."""
    assert not nb04.your_turn_2(grad_mode_left_off)
    assert torch.is_grad_enabled()
    assert nb04.your_turn_3(scale_shift_function(lambda tensor, scale=2.0, shift=0.0: tensor * scale + shift))
