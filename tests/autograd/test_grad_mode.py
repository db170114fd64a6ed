"""Grad modes: ``no_grad``, ``enable_grad``, ``set_grad_enabled`` and ``inference_mode``, as context managers
and as decorators, against PyTorch 2.13.
"""
import pytest

import minigrad as torch


def test_inference_mode_runs_as_no_grad():
    x = torch.ones(2, requires_grad=True)
    with torch.inference_mode():
        y = x * 2
        assert torch.is_inference_mode_enabled() and not torch.is_grad_enabled()
    assert not y.requires_grad and not torch.is_inference_mode_enabled()
    with torch.no_grad(), torch.inference_mode(False):
        assert torch.is_grad_enabled()   # PyTorch 2.13: inference_mode(False) turns grad mode on

    @torch.inference_mode
    def bare(a):
        return a * 2

    @torch.inference_mode()
    def called(a):
        return a * 2
    assert not bare(x).requires_grad and not called(x).requires_grad


# ------------------------------------------------------------------ grad mode as decorators
def grad_enabled() -> bool:
    return torch.is_grad_enabled()


def test_no_grad_and_enable_grad_decorate_without_parentheses():
    assert torch.no_grad(grad_enabled)() is False and torch.no_grad(grad_enabled).__name__ == "grad_enabled"

    @torch.enable_grad
    def recording():
        return torch.is_grad_enabled()
    with torch.no_grad():
        assert recording() is True and torch.enable_grad(grad_enabled)() is True
        assert torch.is_grad_enabled() is False
    assert type(torch.enable_grad(None)).__name__ == "enable_grad"   # None: the context manager itself


def test_a_decorated_generator_runs_each_step_in_the_mode_and_the_caller_keeps_its_own():
    @torch.no_grad()
    def steps():
        yield torch.is_grad_enabled()
        try:
            yield torch.is_grad_enabled()
        except ValueError:
            yield ("thrown", torch.is_grad_enabled())

    generator = steps()
    assert (next(generator), torch.is_grad_enabled(), next(generator)) == (False, True, False)
    assert generator.throw(ValueError()) == ("thrown", False)   # PyTorch 2.13: (1, False) for the same program
    assert list(torch.set_grad_enabled(False)(steps.__wrapped__)()) == [False, False]
    assert torch.is_grad_enabled()


def test_a_decorated_coroutine_runs_in_the_callers_mode_as_in_pytorch():
    import asyncio
    import inspect

    @torch.no_grad()
    async def body():
        await asyncio.sleep(0)
        return torch.is_grad_enabled()
    assert asyncio.run(body()) is True and not inspect.iscoroutinefunction(body)   # PyTorch 2.13: True, False


def test_decorating_a_class_warns_as_pytorch_does():
    class Made:
        def __init__(self):
            self.recording = torch.is_grad_enabled()
    with pytest.warns(FutureWarning) as caught:
        made = torch.no_grad()(Made)
    assert str(caught[0].message) == (
        "Decorating classes is deprecated and will be disabled in future versions. You should only decorate "
        "functions or methods. To preserve the current behavior of class decoration, you can directly decorate the "
        "`__init__` method and nothing else.")
    assert made().recording is False and type(made).__name__ == "function"
    with pytest.warns(FutureWarning):
        assert torch.no_grad(Made)().recording is False


def test_set_grad_enabled_as_a_decorator_leaves_the_mode_alone_until_called():
    decorated = torch.set_grad_enabled(False)(grad_enabled)
    assert torch.is_grad_enabled() and decorated() is False and torch.is_grad_enabled()
    assert type(torch.set_grad_enabled(False).clone()).__name__ == "set_grad_enabled"
    torch.set_grad_enabled(True)
