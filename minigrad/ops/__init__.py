"""minigrad's builtin operations. Every one is a ``Function`` subclass (see ``_util.Builtin``),
recorded in the graph exactly like a Function you write yourself. They are grouped by math family,
one module each: ``arithmetic`` and ``pointwise`` (with ``activation``), ``reduction`` and
``statistics``, ``sorting``, ``shape`` and ``joining``, ``indexing`` and ``gather_scatter``,
``linalg``, ``losses``, and ``inplace``.

Each one's docstring states its math, in the same order: f (the forward); the gradient backward
returns for each input, written ``∂L/∂a = ...`` in terms of ``grad`` = ∂L/∂f, the gradient backward
receives (the vector-Jacobian product); what it saves for backward, and why; then PyTorch's special
cases, and the node's name where it is not the class name followed by ``Backward0``.
"""
from ._util import Builtin, wrap_dim
from .arithmetic import (Add, Div, DivRounding, FloorDivide, Mul, Neg, Pow, PowScalarBase, PowTensor, Reciprocal,
                         Remainder, Rsub, Sub, allclose, compare, div, floor_divide, isclose, isfinite, isinf, isnan,
                         pow, remainder)
from .pointwise import (Abs, Clamp, ClampTensor, Cos, Exp, Log, Sigmoid, Sign, Signum, Sin, Sqrt, Tanh, Where, clamp,
                        where)
from .activation import (Elu, Hardtanh, LeakyRelu, LogSoftmax, LogSoftmaxBackwardData, Relu, Softmax,
                         SoftmaxBackwardData, ThresholdBackward, hardtanh)
from .reduction import (Amax, Amin, LinalgVectorNorm, Mean, MeanDim, Prod, ProdDim, Sum, SumDim, amax, amin, mean, norm,
                        prod, sum, sum_to_size)
from .statistics import Std, StdMean, Var, VarMean, std, std_mean, var, var_mean
from .sorting import (Cumsum, MaxAll, MaxDim, MedianAll, MedianDim, MinAll, MinDim, Sort, Topk, argmax, argmin, argsort,
                      cumsum, max, median, min, sort, topk)
from .shape import (Clone, Expand, Flip, Permute, ReshapeAlias, Squeeze, T, ToCopy, Transpose, UnsafeView, Unsqueeze,
                    View, ViewFunction, expand, flatten, flip, permute, reshape, squeeze, stride, t, view)
from .joining import (Cat, Split, SplitWithSizes, Stack, Unbind, cat, chunk, narrow, split, split_with_sizes, stack,
                      unbind)
from .indexing import (Alias, Index, IndexPut, MaskedFill, MaskedFillTensor, MaskedSelect, Select, Slice, getitem,
                       masked_fill, masked_select, nonzero, setitem)
from .gather_scatter import (Embedding, Gather, IndexAdd, IndexSelect, Scatter, ScatterAdd, ScatterAddInto,
                             ScatterValue, embedding, gather, index_add_, index_select, scatter, scatter_add,
                             scatter_add_)
from .linalg import Addmm, AddmmScaled, BatchedMatmul, Dot, Mm, Mv, addmm, einsum, matmul, mm
from .losses import MseLoss, MseLossBackward, NllLoss, NllLossBackward, mse_loss, nll_loss
from .inplace import (AbsInplace, AddInplace, ClampInplace, ClampTensorInplace, CopyInplace, CosInplace, DivInplace,
                      ExpInplace, FillInplace, FillTensorInplace, HardtanhInplace, LogInplace, MaskedFillInplace,
                      MaskedFillTensorInplace, MulInplace, NegInplace, NormalInplace, PowInplace, PowTensorInplace,
                      ReluInplace, ScatterAddInplace, SigmoidInplace, SignInplace, SinInplace, SqrtInplace, SubInplace,
                      TanhInplace, UniformInplace, ZeroInplace, clamp_, inplace, masked_fill_, normal_, pow_, unary_,
                      uniform_)
from ..autograd.views import AsStrided, CopySlices
