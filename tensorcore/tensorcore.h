#pragma once
// Umbrella header: #include <tensorcore/tensorcore.h>
#include "tensorcore/autograd/function.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/core/tensor.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/index.h"
#include "tensorcore/ops/indexing.h"
#include "tensorcore/ops/linalg.h"
#include "tensorcore/ops/random.h"
#include "tensorcore/ops/reduce.h"
#include "tensorcore/ops/shape.h"
