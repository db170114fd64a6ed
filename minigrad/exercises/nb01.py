"""Checkers for ``01_self.ipynb``.

>>> import minigrad as torch
>>> from minigrad.exercises import nb01
>>> class Scale(torch.nn.Module):
...     def __init__(self):
...         super().__init__()
...         self.factor = torch.nn.Parameter(torch.tensor(1.0))
...     def forward(self, x):
...         return self.factor * x
>>> result = nb01.your_turn_1(Scale)
✓ Your turn 1: a Scale module — correct.
"""
from __future__ import annotations

import re
from typing import Any

import minigrad as torch
from minigrad.nn import Module, Parameter

from ._feedback import _, N_, exercise, expect

REGISTER_HINT = (N_("only a torch.nn.Parameter assigned to self is registered (remember Forgetful): wrap the "
                    "starting value in torch.nn.Parameter(...)"))


def _close(a: list[float], b: list[float]) -> bool:
    return len(a) == len(b) and all(abs(p - q) <= 1e-5 * (1 + abs(q)) for p, q in zip(a, b))


def _build(scale: Any) -> Module:
    """An instance of the learner's module: from its class, or the instance itself."""
    if not isinstance(scale, type):
        return scale
    expect(issubclass(scale, Module), _("{scale_name} is not an nn.Module")
                                      .format(scale_name=scale.__name__), _("write class Scale(torch.nn.Module):"))
    try:
        return scale()
    except AttributeError as error:
        expect("before Module.__init__() call" not in str(error),
               _("Scale() raised AttributeError: {error}").format(error=error),
               _("call super().__init__() as the first line of __init__: it creates the dicts that nn.Module files "
                 "parameters in"))
        not_a_tensor = re.match(r"'(\w+)'\sobject\shas\sno\sattribute\s'(_data|detach)'", str(error))
        expect(not not_a_tensor,
               _("Scale() raised AttributeError: {error}. torch.nn.Parameter wraps a tensor, and it was given a "
                 "{not_a_tensor}").format(error=error, not_a_tensor=not_a_tensor.group(1) if not_a_tensor else ''),
               _("torch.nn.Parameter(torch.tensor(1.0)): make a tensor first, then wrap it"))
        raise
    except RuntimeError as error:
        expect("floating point" not in str(error),
               _("Scale() raised RuntimeError: {error}. torch.tensor(1) holds an integer, and an integer tensor "
                 "cannot require grad").format(error=error),
               _("write the starting value as a float: torch.tensor(1.0)"))
        raise


@exercise("Your turn 1: a Scale module",
          deeper_hint=N_("In __init__, call super().__init__() first, then assign to self.factor a "
                         "torch.nn.Parameter holding the tensor 1.0; forward multiplies x by that attribute itself "
                         "(not a copy of it, and not x.data)."))
def your_turn_1(scale: Any) -> None:
    """Check a module class ``Scale`` whose forward returns ``factor * x`` with one learnable ``factor``."""
    module = _build(scale)
    expect(isinstance(module, Module),
           _("{module_type} is not an nn.Module").format(module_type=type(module).__name__),
           _("write class Scale(torch.nn.Module):"))
    names = [name for name, _ in module.named_parameters()]
    expect(names != [],
           _("Scale() has no parameters: self.factor is a {module_type}, which Module keeps as a plain attribute "
             "(only Parameters go into _parameters)").format(module_type=type(module.__dict__.get('factor')).__name__),
           REGISTER_HINT)
    expect(names == ["factor"],
           _("named_parameters() gives {names}; expected exactly ['factor']").format(names=names),
           _("register one Parameter, under the attribute name factor"))
    factor = module.factor
    expect(isinstance(factor, Parameter), _("module.factor is not a Parameter"), REGISTER_HINT)
    expect(factor.numel() == 1,
           _("factor has shape {factor_shape}; one number should scale the whole input")
           .format(factor_shape=list(factor.shape)),
           _("torch.nn.Parameter(torch.tensor(1.0)) holds a single number"))
    start = factor.detach().reshape(-1).tolist()[0]
    expect(_close([start], [1.0]),
           _("factor starts at {start:g}; the task asks for 1.0, so that a new Scale() leaves its input unchanged "
             "until training moves the factor").format(start=start),
           _("give the Parameter the starting value 1.0"))
    expect(factor.requires_grad,
           _("factor has requires_grad=False, so backward never computes a gradient for it: a Parameter that does "
             "not learn"),
           _("keep the default requires_grad=True of torch.nn.Parameter"))

    grad = factor.grad
    try:
        _check_forward(module, factor)
    finally:   # the learner's module as it was (when an instance was passed)
        with torch.no_grad():
            factor.fill_(start)
        factor.grad = grad


def _check_forward(module: Module, factor: Parameter) -> None:
    """Forward with factor = 2.5 gives 2.5 * x (and -0.5 * x with factor = -0.5), leaves x alone,
    and backward reaches factor. Values other than 1, so that forgetting the factor shows; two of
    them, so that a number written into forward shows. The factor is set (in place) before each
    forward, never between a forward and its backward."""
    given = [1.0, -2.0, 3.0]
    with torch.no_grad():
        factor.fill_(-0.5)
    other = module(torch.tensor(given))
    other = other.tolist() if isinstance(other, torch.Tensor) else other
    with torch.no_grad():
        factor.fill_(2.5)
    x = torch.tensor(given)
    out = module(x)
    expect(x.tolist() == given,
           _("forward changed its input in place: the caller's x was {given} and is now {x}")
           .format(given=given, x=x.tolist()),
           _("compute a new tensor from x; an in-place method such as x.mul_(...) overwrites the caller's data"))
    expect(isinstance(out, torch.Tensor), _("forward returned {out_type}, not a tensor")
                                          .format(out_type=type(out).__name__),
           _("return self.factor * x"))
    expect(list(out.shape) == [3],
           _("for an input of shape [3], forward returned shape {out_shape}").format(out_shape=list(out.shape)),
           _("multiply every element of x by the same factor"))
    expect(not _close(out.tolist(), x.tolist()),
           _("with factor = 2.5, Scale()(x) returned x unchanged: forward does not use self.factor"),
           _("return self.factor * x"))
    expect(_close(out.tolist(), [2.5 * v for v in x.tolist()]),
           _("with factor = 2.5 and x = {x}, forward returned {out}").format(x=x.tolist(), out=out.tolist()),
           _("return self.factor * x"))
    expect(other != out.tolist(),
           _("forward returned the same numbers with factor = 2.5 and with factor = -0.5: its output does not "
             "depend on self.factor (a number written into forward instead of the Parameter?)"),
           _("return self.factor * x: the factor that training changes"))
    expect(isinstance(other, list) and _close(other, [-0.5 * v for v in given]),
           _("with factor = -0.5 and x = {given}, forward returned {other}").format(given=given, other=other),
           _("return self.factor * x"))

    factor.grad = None
    expect(out.requires_grad,
           _("the output does not require grad, so no gradient can reach factor: forward used a copy of the "
             "Parameter (float(self.factor) or self.factor.item() cuts the graph)"),
           _("use the Parameter itself in forward: self.factor * x"))
    out.sum().backward()
    expect(factor.grad is not None,
           _("factor.grad is None after backward: the output was not computed from the Parameter (a copy such as "
             "float(self.factor) or self.factor.item() cuts the graph)"),
           _("use the Parameter itself in forward: self.factor * x"))
    expect(_close(factor.grad.reshape(-1).tolist(), [sum(x.tolist())]),
           _("after out.sum().backward(), factor.grad is {factor_grad}; expected the sum of x")
           .format(factor_grad=factor.grad.tolist()),
           _("d(sum(factor * x)) / d factor = sum(x)"))
    _check_gradient_reaches_the_input(module, given)


def _check_gradient_reaches_the_input(module: Module, given: list[float]) -> None:
    """An input that requires grad (the output of an earlier layer) gets factor * grad_output: a
    forward that reads ``x.data`` or ``x.detach()`` computes the right numbers but cuts it off."""
    x = torch.tensor(given, requires_grad=True)
    out = module(x)
    out.backward(torch.tensor([1.0, 10.0, 100.0]))
    expect(x.grad is not None,
           _("for an input x that requires grad (the output of an earlier layer, say), x.grad is None after "
             "backward: forward cut x off from the graph (x.data or x.detach() does), so no layer before Scale "
             "would ever learn"),
           _("use x itself: return self.factor * x"))
    expect(_close(x.grad.tolist(), [2.5, 25.0, 250.0]),
           _("with factor = 2.5 and an incoming gradient [1.0, 10.0, 100.0], x.grad is {x_grad}; expected factor "
             "times the incoming gradient, [2.5, 25.0, 250.0]").format(x_grad=x.grad.tolist()),
           _("return self.factor * x"))


@exercise("Your turn 2: names of nested parameters",
          deeper_hint=N_("Read Net's __init__ line by line: its own Parameters come first, in the order they are "
                         "assigned; then each sub-module, in the order it is assigned, with its names prefixed by "
                         "the attribute's name and a dot, the same rule applying inside it."))
def your_turn_2(net_class: Any, predicted_names: Any) -> None:
    """Check a predicted list of ``net_class().named_parameters()`` names, in order."""
    expect(predicted_names is not Ellipsis and predicted_names is not None,
           _("you have not written your prediction yet"),
           _("a list of strings such as ['encoder.scale', ...]"))
    expect(isinstance(predicted_names, (list, tuple)) and all(isinstance(n, str) for n in predicted_names),
           _("{predicted_names!r} is not a list of strings").format(predicted_names=predicted_names),
           _("write the names as strings in a list: ['a', 'b.c']"))
    net = net_class() if isinstance(net_class, type) and issubclass(net_class, Module) else net_class
    expect(isinstance(net, Module), _("the first argument is {net_class_type}, not the module class")
                                    .format(net_class_type=type(net_class).__name__),
           _("check.your_turn_2(Net, predicted_names): the class first, then your list"))
    actual = [name for name, _ in net.named_parameters()]
    predicted = list(predicted_names)
    if predicted == actual:
        return
    duplicates = sorted({n for n in predicted if predicted.count(n) > 1})
    expect(not duplicates, _("{duplicates} appear more than once; each parameter is listed once")
                           .format(duplicates=duplicates),
           _("named_parameters() gives each parameter once, even a parameter that two paths reach"))
    extra = [n for n in predicted if n not in actual]
    outer = [n for n in extra if "." in n and n.split(".", 1)[1] in actual]
    expect(not outer,
           _("{outer} start with a name that is not a parameter's path: named_parameters() starts from the module "
             "it is called on, which adds no name of its own").format(outer=outer),
           _("net.encoder.scale is named 'encoder.scale': the path from net, without net"))
    short = [n for n in extra if any(a.endswith("." + n) for a in actual)]
    expect(not short,
           _("{short} lack part of their prefix: a sub-module's parameters are named by the whole path of "
             "attributes that leads to them from the module, joined with dots").format(short=short),
           _("model.encoder.linear.weight is named 'encoder.linear.weight'"))
    skipped_bias = [n for n in extra if n.endswith(".bias") and n[:-len("bias")] + "weight" in actual]
    expect(not skipped_bias,
           _("named_parameters() has no {skipped_bias}: that Linear was built with bias=False, which registers bias "
             "as None, and named_parameters() skips None").format(skipped_bias=skipped_bias),
           _("look at the arguments of each nn.Linear"))
    expect(not extra, _("named_parameters() has no {extra}").format(extra=extra),
           _("list only Parameters: the ones assigned in __init__ and those of sub-modules"))
    missing = [n for n in actual if n not in predicted]
    if missing:   # which ones is not said: naming them would give the answer away
        expect(False, _("your list misses {n_missing} of the {n_actual} names")
                      .format(n_missing=len(missing), n_actual=len(actual)),
               _("every Parameter assigned to self in __init__, and every Parameter of each sub-module; "
                 "nn.Linear(a, b) holds two Parameters, weight and bias (unless bias=False)"))
    expect(False,
           _("right names, wrong order"),
           _("a module lists its own Parameters first (in the order they were assigned), then those of each "
             "sub-module, in the order the sub-modules were assigned"))
