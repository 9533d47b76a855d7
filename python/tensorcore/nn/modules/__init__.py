"""All nn layer modules."""

from .module import Module, RemovableHandle  # noqa: F401
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict  # noqa: F401
from .linear import Identity, Linear, Bilinear  # noqa: F401
from .activation import (  # noqa: F401
    Threshold,
    ReLU,
    Hardtanh,
    ReLU6,
    Sigmoid,
    Tanh,
    Hardsigmoid,
    Hardswish,
    SiLU,
    Mish,
    SELU,
    ELU,
    CELU,
    GELU,
    LeakyReLU,
    RReLU,
    PReLU,
    Softplus,
    Softsign,
    Tanhshrink,
    Hardshrink,
    Softshrink,
    LogSigmoid,
    GLU,
    Softmax,
    LogSoftmax,
    Softmin,
    Softmax2d,
)
from .dropout import Dropout, Dropout1d, Dropout2d, Dropout3d, AlphaDropout, FeatureAlphaDropout  # noqa: F401
from .flatten import Flatten, Unflatten  # noqa: F401
from .padding import (  # noqa: F401
    ConstantPad1d,
    ConstantPad2d,
    ConstantPad3d,
    ZeroPad2d,
    ReflectionPad1d,
    ReflectionPad2d,
    ReflectionPad3d,
    ReplicationPad1d,
    ReplicationPad2d,
    ReplicationPad3d,
)
from .distance import PairwiseDistance, CosineSimilarity  # noqa: F401
from .loss import (  # noqa: F401
    L1Loss,
    MSELoss,
    NLLLoss,
    NLLLoss2d,
    CrossEntropyLoss,
    BCELoss,
    BCEWithLogitsLoss,
    SmoothL1Loss,
    HuberLoss,
    KLDivLoss,
    CosineEmbeddingLoss,
    MarginRankingLoss,
    HingeEmbeddingLoss,
    SoftMarginLoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    MultiLabelMarginLoss,
    TripletMarginLoss,
    TripletMarginWithDistanceLoss,
    PoissonNLLLoss,
    GaussianNLLLoss,
    CTCLoss,
)
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d  # noqa: F401
from .pooling import (  # noqa: F401
    MaxPool1d,
    MaxPool2d,
    MaxPool3d,
    MaxUnpool2d,
    AvgPool1d,
    AvgPool2d,
    AvgPool3d,
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    LPPool1d,
    LPPool2d,
)
from .normalization import (  # noqa: F401
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    SyncBatchNorm,
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
    LayerNorm,
    GroupNorm,
    LocalResponseNorm,
)
from .sparse import Embedding, EmbeddingBag  # noqa: F401
from .rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell  # noqa: F401
from .pixelshuffle import (  # noqa: F401
    PixelShuffle,
    PixelUnshuffle,
    ChannelShuffle,
    Upsample,
    UpsamplingNearest2d,
    UpsamplingBilinear2d,
    Unfold,
    Fold,
)
from .transformer import (  # noqa: F401
    MultiheadAttention,
    Transformer,
    TransformerEncoder,
    TransformerEncoderLayer,
    TransformerDecoder,
    TransformerDecoderLayer,
)
from .lazy import LazyModuleMixin, LazyLinear, LazyConv1d, LazyConv2d, LazyConv3d  # noqa: F401
