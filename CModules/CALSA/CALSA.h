// ALSA (alsa-lib) for Swift.
#ifndef CALSA_H
#define CALSA_H
#include <alsa/asoundlib.h>
#endif
