/* A loop of n iterations that only computes (no memory access but the
   counter's own), for clients that need a thread to do some work of a
   known, tunable size: threads.c, thread_exit.c, thread_reuse.c. */
#ifndef SPIN_H
#define SPIN_H

static long spin(long n)
{
    long s = 0;
    for (long i = 0; i < n; i++)
        s += i & 7;
    return s;
}

#endif
