// Included first by the transform sources whose float arithmetic must round as torchvision's
// separate tensor ops do (or as another compiler would): no FMA contraction from here to the end
// of the translation unit. Each source says why it needs it.
#pragma once

#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif
