// V4L2 for Swift: the kernel's video capture API plus libv4l2.
// Swift cannot import the _IOR/_IOWR macros behind VIDIOC_*, the v4l2_fourcc()
// function-like macros behind V4L2_PIX_FMT_*, MAP_FAILED (a pointer cast), nor call
// the variadic ioctl(2); each wrapper below exists for one of those reasons.
//
// Decision: OTKit drives the device with plain ioctl(2) + mmap(2) on the fd, not
// libv4l2's v4l2_ioctl/v4l2_mmap. Frames then go straight from the driver's buffer
// into libyuv / libturbojpeg (SIMD, one pass, into a pooled I420 frame); libv4l2's
// emulated formats would add a conversion and a copy. libv4l2 stays linked for a
// possible fallback on cameras with odd vendor formats (not used today).
#ifndef CV4L2_H
#define CV4L2_H
#include <linux/videodev2.h>
#include <libv4l2.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

// VIDIOC_* request numbers: _IOR/_IOWR macros are not importable.
static const unsigned long CV4L2_VIDIOC_QUERYCAP = VIDIOC_QUERYCAP;
static const unsigned long CV4L2_VIDIOC_ENUM_FMT = VIDIOC_ENUM_FMT;
static const unsigned long CV4L2_VIDIOC_S_FMT = VIDIOC_S_FMT;
static const unsigned long CV4L2_VIDIOC_REQBUFS = VIDIOC_REQBUFS;
static const unsigned long CV4L2_VIDIOC_QUERYBUF = VIDIOC_QUERYBUF;
static const unsigned long CV4L2_VIDIOC_QBUF = VIDIOC_QBUF;
static const unsigned long CV4L2_VIDIOC_DQBUF = VIDIOC_DQBUF;
static const unsigned long CV4L2_VIDIOC_STREAMON = VIDIOC_STREAMON;
static const unsigned long CV4L2_VIDIOC_STREAMOFF = VIDIOC_STREAMOFF;
static const unsigned long CV4L2_VIDIOC_G_PARM = VIDIOC_G_PARM;
static const unsigned long CV4L2_VIDIOC_S_PARM = VIDIOC_S_PARM;
static const unsigned long CV4L2_VIDIOC_ENUM_FRAMESIZES = VIDIOC_ENUM_FRAMESIZES;
static const unsigned long CV4L2_VIDIOC_ENUM_FRAMEINTERVALS = VIDIOC_ENUM_FRAMEINTERVALS;
static const unsigned long CV4L2_VIDIOC_QUERYCTRL = VIDIOC_QUERYCTRL;
static const unsigned long CV4L2_VIDIOC_S_CTRL = VIDIOC_S_CTRL;

// ioctl(2) is variadic (not callable from Swift) and may be interrupted by a signal;
// this retries on EINTR and returns -1 with errno set on failure, like ioctl.
static inline int cv4l2_ioctl(int fd, unsigned long request, void *argument) {
    int result;
    do {
        result = ioctl(fd, request, argument);
    } while (result == -1 && errno == EINTR);
    return result;
}

// mmap of one driver buffer; MAP_FAILED is a pointer cast Swift cannot import, so this
// returns NULL on failure (errno set).
static inline void *cv4l2_mmap_buffer(int fd, size_t length, uint32_t offset) {
    void *address = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)offset);
    return address == MAP_FAILED ? NULL : address;
}

#endif
