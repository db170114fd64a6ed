"""``gradcheck``: what it checks beyond the Jacobian (undefined output gradients, a backward that ignores
its gradient), with PyTorch 2.13's texts.
"""
import pytest

import minigrad as torch


class NoneRefused(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        if grad is None:
            raise RuntimeError("no gradient")
        return grad * 2


class OnesForZeros(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2 if bool((grad != 0).any()) else torch.ones_like(grad)


UNDEFINED_COMPATIBILITY = (
    "Backwards compatibility: New undefined gradient support checking feature is enabled by default, but it may break "
    "existing callers of this function. If this is true for you, you can call this function with "
    "\"check_undefined_grad=False\" to disable the feature")


def test_gradcheck_checks_undefined_output_gradients_as_pytorch_does():
    x = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)
    with pytest.warns(UserWarning) as caught:
        with pytest.raises(torch.autograd.GradcheckError) as error:
            torch.autograd.gradcheck(NoneRefused.apply, (x,))
    assert str(error.value) == ('Expected backward function to handle undefined output grads. Please look at "Notes '
                                'about undefined output gradients" in "tools/autograd/derivatives.yaml"')
    assert str(error.value.__cause__) == "no gradient" and str(caught[0].message) == UNDEFINED_COMPATIBILITY
    with pytest.warns(UserWarning):
        assert torch.autograd.gradcheck(NoneRefused.apply, (x,), raise_exception=False) is False
    assert torch.autograd.gradcheck(NoneRefused.apply, (x,), check_undefined_grad=False) is True   # minigrad said True


def test_gradcheck_checks_that_backward_is_multiplied_by_the_gradient():
    x = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)
    for options in ({}, {"check_undefined_grad": False}):
        with pytest.raises(torch.autograd.GradcheckError, match="^backward not multiplied by grad_output$"):
            torch.autograd.gradcheck(OnesForZeros.apply, (x,), **options)
    assert torch.autograd.gradcheck(OnesForZeros.apply, (x,), raise_exception=False) is False
