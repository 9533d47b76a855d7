#pragma once
// #include <tensorcore/tensor.h> gives the whole core API.
#include "tensorcore/tensorcore.h"
