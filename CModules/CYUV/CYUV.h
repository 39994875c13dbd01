// libyuv for Swift: WebRTC's SIMD pixel conversion and scaling (C API).
#ifndef CYUV_H
#define CYUV_H
#include <libyuv.h>
#endif
