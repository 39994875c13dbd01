#include "CAllocCounter.h"
int alloc_counter_placeholder(void) { return 0; }
