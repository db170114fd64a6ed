"""minigrad's builtin operations. Every one is a ``Function`` subclass (see ``_util.Builtin``),
recorded in the graph exactly like a Function you write yourself.

Each one's docstring states its math, in the same order: f (the forward); the gradient backward
returns for each input, written ``∂L/∂a = ...`` in terms of ``grad`` = ∂L/∂f, the gradient backward
receives (the vector-Jacobian product); what it saves for backward, and why; then PyTorch's special
cases, and the node's name where it is not the class name followed by ``Backward0``.
"""
from ._util import Builtin, wrap_dim
from .arithmetic import (Add, Div, FloorDivide, Mul, Neg, Pow, PowScalarBase, PowTensor, Reciprocal, Remainder, Rsub,
                         Sub, compare, pow)
from .arithmetic import DivRounding, div, floor_divide, remainder
from ..autograd.views import AsStrided, CopySlices
from .indexing import Alias, Index, IndexAdd, IndexPut, Select, Slice, getitem, index_add_, setitem
from .inplace import (AddInplace, CopyInplace, DivInplace, FillInplace, FillTensorInplace, MulInplace, SubInplace,
                      ZeroInplace, inplace)
from .linalg import Addmm, BatchedMatmul, Dot, Mm, Mv, matmul, mm
from .pointwise import Abs, Clamp, ClampTensor, Cos, Exp, Log, Relu, Sigmoid, Sign, Sin, Sqrt, Tanh, ThresholdBackward, Where, clamp, where
from .reduction import (Gather, LogSoftmax, LogSoftmaxBackwardData, MaxAll, MaxDim, Mean, MeanDim, MinAll, MinDim,
                        ScatterAdd, Softmax, SoftmaxBackwardData, Sort, Sum, SumDim, argmax, argmin, max, mean, min, sort,
                        sum, sum_to_size)
from .shape import (Cat, Clone, Expand, Permute, ReshapeAlias, Squeeze, Stack, T, ToCopy, Transpose, UnsafeView,
                    Unsqueeze, View, ViewFunction, cat, expand, flatten, permute, reshape, squeeze, stack, t, view)
from .activation import Elu, LeakyRelu
from .masking import MaskedFill, MaskedFillTensor, isfinite, isinf, isnan, masked_fill, nonzero
from .splitting import Split, SplitWithSizes, chunk, narrow, split
from .statistics import Prod, ProdDim, Std, Var, prod, std, var
# Ops that real programs by other authors reach for (issue 21)
from .comparison import Flip, IndexSelect, MaskedSelect, Signum, allclose, flip, index_select, isclose, masked_select
from .scans import (Cumsum, Embedding, LinalgVectorNorm, ScatterAddInto, Topk, cumsum, embedding, gather, norm,
                    scatter_add, scatter_add_, topk)
from .pieces import StdMean, Unbind, VarMean, split_with_sizes, std_mean, unbind, var_mean
from .products import AddmmScaled, addmm, einsum
from .hardtanh import Hardtanh, hardtanh
from .inplace_unary import (AbsInplace, ClampInplace, ClampTensorInplace, CosInplace, ExpInplace,
                            HardtanhInplace, LogInplace, MaskedFillInplace,
                            MaskedFillTensorInplace, NegInplace, NormalInplace, ReluInplace, ScatterAddInplace,
                            SigmoidInplace, SignInplace, SinInplace, SqrtInplace, TanhInplace, UniformInplace, clamp_,
                            masked_fill_, normal_, unary_, uniform_)
# What students and real programs reach for beyond the course's own ops
from .everyday import (Amax, Amin, MedianAll, MedianDim, PowInplace, PowTensorInplace, Scatter, ScatterValue, amax,
                       amin, argsort, median, pow_, scatter, stride)
