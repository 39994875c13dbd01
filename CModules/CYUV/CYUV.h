// libyuv for Swift: WebRTC's SIMD pixel conversion and scaling (C API).
// The C API imports as is (plain functions, an enum for filters); no wrappers needed.
#ifndef CYUV_H
#define CYUV_H
#include <libyuv.h>
#endif
