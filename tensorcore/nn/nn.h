#pragma once
// The C++ frontend in one include: modules, layers, losses, init; plus tc::optim and tc::data.
#include "tensorcore/data/dataloader.h"
#include "tensorcore/data/dataset.h"
#include "tensorcore/nn/clip_grad.h"
#include "tensorcore/nn/containers.h"
#include "tensorcore/nn/init.h"
#include "tensorcore/nn/layers.h"
#include "tensorcore/nn/loss.h"
#include "tensorcore/nn/module.h"
#include "tensorcore/nn/rnn.h"
#include "tensorcore/nn/transformer.h"
#include "tensorcore/optim/lr_scheduler.h"
#include "tensorcore/optim/optimizer.h"
