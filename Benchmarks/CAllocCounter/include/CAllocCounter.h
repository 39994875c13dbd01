#ifndef CALLOCCOUNTER_H
#define CALLOCCOUNTER_H
int alloc_counter_placeholder(void);
#endif
