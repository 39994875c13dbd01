// libturbojpeg for Swift: MJPEG camera frames decoded straight to I420.
#ifndef CTURBOJPEG_H
#define CTURBOJPEG_H
#include <turbojpeg.h>

// tjDecompressToYUVPlanes takes arrays of plane pointers and strides; this takes them as
// plain arguments so the Swift per-frame path builds no arrays (no allocation).
static inline int ctj_decompress_to_planes(tjhandle handle, const unsigned char *jpeg,
                                           unsigned long size, unsigned char *y, int strideY,
                                           unsigned char *u, int strideU, unsigned char *v,
                                           int strideV, int width, int height, int flags) {
    unsigned char *planes[3] = { y, u, v };
    int strides[3] = { strideY, strideU, strideV };
    return tjDecompressToYUVPlanes(handle, jpeg, size, planes, width, strides, height, flags);
}

// tjCompressFromYUVPlanes takes arrays of plane pointers and strides; same reason as
// above (used by tests and tools to make JPEGs from known planes).
static inline int ctj_compress_from_planes(tjhandle handle, const unsigned char *y, int strideY,
                                           const unsigned char *u, int strideU,
                                           const unsigned char *v, int strideV, int width,
                                           int height, int subsampling, unsigned char **jpeg,
                                           unsigned long *size, int quality, int flags) {
    const unsigned char *planes[3] = { y, u, v };
    int strides[3] = { strideY, strideU, strideV };
    return tjCompressFromYUVPlanes(handle, planes, width, strides, height, subsampling, jpeg,
                                   size, quality, flags);
}

#endif
