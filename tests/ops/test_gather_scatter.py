"""``scatter`` (``minigrad/ops/gather_scatter.py``) against PyTorch 2.13: where it writes, its gradients,
its errors.
"""
import pytest

import minigrad as torch

from helpers import INF, NAN, message, values


def test_scatter_writes_where_the_index_says_and_its_gradients():
    x = torch.zeros(2, 4, requires_grad=True)
    src = torch.arange(1.0, 5.0).view(2, 2).requires_grad_()
    y = x.scatter(1, torch.tensor([[0, 1], [2, 3]]), src)
    assert y.tolist() == [[1.0, 2.0, 0.0, 0.0], [0.0, 0.0, 3.0, 4.0]] and y.grad_fn.name() == "ScatterBackward0"
    y.backward(torch.tensor([[INF, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, NAN]]))
    assert values(x.grad) == [["0.0", "0.0", "3.0", "4.0"], ["5.0", "6.0", "0.0", "0.0"]]
    assert values(src.grad) == [["inf", "2.0"], ["7.0", "nan"]]
    y = torch.zeros(2, 4).scatter(1, torch.tensor([[0, 1, 2, 3, 0]]), 1.0)   # only the rows the index has
    assert y.tolist() == [[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]]
    z = torch.zeros(3, requires_grad=True) * 1
    z.scatter_(0, torch.tensor([1]), 7.0)
    assert z.grad_fn.name() == "ScatterBackward1" and z.tolist() == [0.0, 7.0, 0.0]


@pytest.mark.parametrize("call, expected", [
    (lambda x: x.scatter(1, torch.tensor([[0, 5]]), 1.0), "RuntimeError: index 5 is out of bounds for dimension 1 with size 4"),
    (lambda x: x.scatter(1, torch.tensor([[0.0]]), 1.0), "RuntimeError: scatter(): Expected dtype int32/int64 for index"),
    (lambda x: x.scatter(1, torch.tensor([0]), 1.0),
     "RuntimeError: Index tensor must have the same number of dimensions as self tensor"),
    (lambda x: x.scatter(1, torch.tensor([[0, 1]]), torch.ones(1, 1)),
     "RuntimeError: Expected index [1, 2] to be no larger than self [2, 4] apart from dimension 1 and to be no larger "
     "size than src [1, 1]"),
    (lambda x: x.scatter(1, torch.tensor([[0, 1]]), torch.ones(1, 2, dtype=torch.float64)),
     "RuntimeError: scatter(): Expected self.dtype to be equal to src.dtype"),
    (lambda x: x.scatter(0, torch.tensor([[0, 1, 2, 3, 0]]), 1.0),
     "RuntimeError: Expected index [1, 5] to be no larger than self [2, 4] apart from dimension 0"),
    (lambda x: x.scatter(1, torch.tensor([[0]]), torch.tensor(2.0)),
     "RuntimeError: Index tensor must have the same number of dimensions as src tensor"),
    (lambda x: x.requires_grad_().scatter_(1, torch.tensor([[0]]), 1.0),
     "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation."),
])
def test_scatter_refuses_as_pytorch(call, expected):
    assert message(lambda: call(torch.zeros(2, 4))) == expected
