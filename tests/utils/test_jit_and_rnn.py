"""torch.jit's decorators and checks pass through (minigrad runs Python as written); torch.nn.utils.rnn
imports, pads sequences, and refuses packed sequences with a clear NotImplementedError."""
import pytest

import minigrad as torch
from minigrad.nn.utils import rnn
from helpers import message


def test_jit_pass_throughs():
    with pytest.warns(DeprecationWarning, match="`torch.jit.script` is deprecated. Please switch to `torch.compile` or "
                                                "`torch.export`."):
        @torch.jit.script
        def swish(x):
            return x.mul(torch.sigmoid(x))
    assert swish(torch.tensor([0.0, 1.0])).tolist() == pytest.approx([0.0, 0.7310586])

    @torch.jit.unused
    def unused(x):
        return x

    @torch.jit.ignore
    def ignored(x):
        return x + 1

    @torch.jit.ignore(drop=True)
    def dropped(x):
        return x + 2

    @torch.jit.export
    def exported(x):
        return x * 3

    assert (unused(1), ignored(1), dropped(1), exported(1)) == (1, 2, 3, 3)
    assert torch.jit.is_scripting() is False and torch.jit.is_tracing() is False and torch.jit.annotate(int, 3) == 3


def test_other_jit_names_are_refused_with_what_to_do():
    with pytest.raises(NotImplementedError, match=r"torch.jit.trace is out of scope for minigrad \(compilation, "
                                                  r"tracing and TorchScript\)"):
        torch.jit.trace(lambda x: x, torch.ones(1))


def test_pad_sequence():
    assert rnn.pad_sequence([torch.ones(2), torch.ones(3)]).tolist() == [[1, 1], [1, 1], [0, 1]]
    assert rnn.pad_sequence([torch.ones(2), torch.ones(3)], batch_first=True, padding_value=-1.0).tolist() == [
        [1, 1, -1], [1, 1, 1]]
    assert rnn.pad_sequence([torch.ones(2), torch.ones(3)], padding_side="left").tolist() == [[0, 1], [1, 1], [1, 1]]
    a, b = torch.ones(2, requires_grad=True), torch.ones(3, 2, requires_grad=True)
    y = rnn.pad_sequence([a.view(2, 1).expand(2, 2), b])
    y.sum().backward()
    assert y.shape == (3, 2, 2) and y.grad_fn.name() == "torch::autograd::CopySlices"
    assert a.grad.tolist() == [2.0, 2.0] and b.grad.tolist() == [[1, 1]] * 3
    assert rnn.pad_sequence(torch.ones(2, 3)).shape == (3, 2)
    assert message(lambda: rnn.pad_sequence([])) == "RuntimeError: received an empty list of sequences"
    assert message(lambda: rnn.pad_sequence([torch.ones(2), torch.ones(2, 3)])) == (
        "RuntimeError: The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1")


def test_packed_sequences_import_and_refuse():
    from minigrad.nn.utils.rnn import PackedSequence, pack_padded_sequence, pack_sequence, pad_packed_sequence  # noqa: F401
    assert message(lambda: pack_padded_sequence(torch.ones(3, 2), torch.tensor([3, 2]))).startswith(
        "NotImplementedError: minigrad does not implement torch.nn.utils.rnn.pack_padded_sequence")
    with pytest.raises(NotImplementedError, match="PackedSequence"):
        PackedSequence(torch.ones(2))
