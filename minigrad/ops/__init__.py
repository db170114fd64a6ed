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
from .arithmetic import (Add, AddScaled, Div, DivRounding, DivScalar, FloorDivide, Mul, MulScalar, Neg, Pow,
                         PowScalarBase, PowTensor, Reciprocal, Remainder, Rsub, RsubTensor, Sub, SubScaled, allclose,
                         compare, div, floor_divide, isclose, isfinite, isinf, isnan, pow, remainder)
from .pointwise import (Abs, Clamp, ClampTensor, Cos, Exp, Log, Maximum, Minimum, Sigmoid, Sign, Signum, Sin, Sqrt,
                        Tanh, Where, clamp, maximum, minimum, where)
from .activation import (Elu, Hardtanh, LeakyRelu, LogSoftmax, LogSoftmaxBackwardData, Relu, Softmax,
                         SoftmaxBackwardData, Softplus, SoftplusBackward, ThresholdBackward, hardtanh)
from .reduction import (Amax, Amin, LinalgVectorNorm, Mean, MeanDim, MeanDtype, Prod, ProdDim, Sum, SumDim, amax, amin,
                        mean, norm, prod, sum, sum_to_size)
from .statistics import Std, StdMean, Var, VarMean, std, std_mean, var, var_mean
from .sorting import (Cumsum, MaxAll, MaxDim, MedianAll, MedianDim, MinAll, MinDim, Sort, Topk, argmax, argmin, argsort,
                      cumsum, max, median, min, sort, topk)
from .shape import (Clone, Expand, Flip, Permute, Repeat, ReshapeAlias, Squeeze, T, ToCopy, Transpose, TransposeInplace,
                    UnsafeView, Unsqueeze, View, ViewFunction, expand, flatten, flip, permute, repeat, reshape, squeeze,
                    stride, t, transpose_, view)
from .joining import (Cat, Split, SplitWithSizes, Stack, Unbind, cat, chunk, narrow, split, split_with_sizes, stack,
                      unbind)
from .indexing import (Alias, Index, IndexPut, MaskedFill, MaskedFillTensor, MaskedSelect, Select, Slice, getitem,
                       masked_fill, masked_select, nonzero, setitem)
from .gather_scatter import (Embedding, Gather, IndexAdd, IndexAddOutOfPlace, IndexSelect, Scatter, ScatterAdd,
                             ScatterAddInto, ScatterValue, embedding, gather, index_add, index_add_, index_select,
                             repeat_interleave, scatter, scatter_add, scatter_add_)
from .linalg import Addmm, AddmmScaled, BatchedMatmul, Dot, Mm, Mv, addmm, einsum, matmul, mm
from .losses import (BinaryCrossEntropy, BinaryCrossEntropyBackward, BinaryCrossEntropyWithLogits, MseLoss,
                     MseLossBackward, NllLoss, NllLoss2d, NllLoss2dBackward, NllLossBackward, binary_cross_entropy,
                     binary_cross_entropy_with_logits, mse_loss, nll_loss)
from .inplace import (AbsInplace, AddInplace, AddScaledInplace, ClampInplace, ClampTensorInplace, CopyInplace,
                      CosInplace, DivInplace, DivRoundingInplace, Fill, FillTensor, fill,
                      ExpInplace, FillInplace, FillTensorInplace, HardtanhInplace, LogInplace, MaskedFillInplace,
                      MaskedFillTensorInplace, MulInplace, NegInplace, NormalInplace, PowInplace, PowTensorInplace,
                      ReluInplace, ScatterAddInplace, SigmoidInplace, SignInplace, SinInplace, SqrtInplace, SubInplace,
                      SubScaledInplace, TanhInplace, UniformInplace, ZeroInplace, clamp_, inplace, inplace_fill,
                      masked_fill_, normal_, pow_, unary_, uniform_)
from ..autograd.views import AsStrided, CopySlices
