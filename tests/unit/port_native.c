/*
** port_native.c -- the includer-supplied interface of the pure-C parts
** (cachesim/, backdate/), implemented with libc for native unit tests.
** Inside the tool, callgrind/ supplies the same functions with
** VG_(calloc), VG_(free) and VG_(tool_panic).
**
** Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
*/
#include <stdio.h>
#include <stdlib.h>

/* ---- backdate/ ---------------------------------------------------------- */
void *bd_alloc(unsigned long bytes);
void  bd_free(void *p);
void  bd_fail(const char *msg) __attribute__((noreturn));

void *bd_alloc(unsigned long bytes)
{
   void *p = calloc(1, bytes ? bytes : 1);
   if (!p) {
      fprintf(stderr, "bd_alloc: out of memory (%lu bytes)\n", bytes);
      abort();
   }
   return p;
}

void bd_free(void *p) { free(p); }

void bd_fail(const char *msg)
{
   fprintf(stderr, "backdate failure: %s\n", msg);
   abort();
}

/* ---- cachesim/ ---------------------------------------------------------- */
void *cs_alloc(unsigned long bytes);
void  cs_free(void *p);
void  cs_fail(const char *msg) __attribute__((noreturn));

void *cs_alloc(unsigned long bytes)
{
   void *p = calloc(1, bytes ? bytes : 1);
   if (!p) {
      fprintf(stderr, "cs_alloc: out of memory (%lu bytes)\n", bytes);
      abort();
   }
   return p;
}

void cs_free(void *p) { free(p); }

/* Weak, so a test may replace it (e.g. to catch an expected failure). */
__attribute__((weak)) void cs_fail(const char *msg)
{
   fprintf(stderr, "cachesim failure: %s\n", msg);
   abort();
}
