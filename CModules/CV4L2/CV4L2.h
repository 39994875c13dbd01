// V4L2 for Swift: the kernel's video capture API plus libv4l2.
// Swift cannot import the _IOR/_IOWR macros behind VIDIOC_*, nor call the variadic
// ioctl(2); each wrapper below exists for one of those reasons.
#ifndef CV4L2_H
#define CV4L2_H
#include <linux/videodev2.h>
#include <libv4l2.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <errno.h>
#endif
