"""Forward-mode AD (``torch.autograd.forward_ad``) is outside minigrad: every entry point says so.

minigrad teaches reverse mode, the ``backward`` of a custom Function. A program that needs dual
numbers (``make_dual``, ``unpack_dual``, ``dual_level``) or a Function's ``jvp`` stops here with a
``NotImplementedError`` instead of silently computing something else.

>>> import minigrad as torch
>>> torch.autograd.forward_ad.make_dual(torch.ones(1), torch.ones(1))
Traceback (most recent call last):
    ...
NotImplementedError: minigrad does not implement forward-mode AD (torch.autograd.forward_ad.make_dual); use backward mode: .backward() or torch.autograd.grad.
"""
from __future__ import annotations


def _missing(name: str):
    def entry_point(*args, **kwargs):
        raise NotImplementedError(f"minigrad does not implement forward-mode AD (torch.autograd.forward_ad.{name}); "
                                  "use backward mode: .backward() or torch.autograd.grad.")
    entry_point.__name__ = name
    return entry_point


make_dual = _missing("make_dual")
unpack_dual = _missing("unpack_dual")
enter_dual_level = _missing("enter_dual_level")
exit_dual_level = _missing("exit_dual_level")
dual_level = _missing("dual_level")
UnpackedDualTensor = _missing("UnpackedDualTensor")
