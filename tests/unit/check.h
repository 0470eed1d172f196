/*
** check.h -- the checking scaffold shared by the native unit tests.
**
** A test is a list of groups. begin() starts a group, CHECK(what, got,
** want) compares two integers (each evaluated once: `got` is often an
** access to the model), and end(name) prints "PASS <name>" or
** "FAIL <name>: <first failed check>" and counts failures. Only the first
** failure of a group is reported: later ones usually follow from it.
** main() returns `failures ? 1 : 0`. rnd(n) draws from a fixed-seed
** xorshift sequence (a test may reseed `rng`).
*/
#ifndef UNIT_CHECK_H
#define UNIT_CHECK_H

#include <stdio.h>

static int failures, group_failed;
static char fail_msg[256];

static void begin(void) { group_failed = 0; fail_msg[0] = 0; }

static void check_at(int ok, const char *what, long got, long want, int line)
{
   if (ok || group_failed)
      return;
   group_failed = 1;
   snprintf(fail_msg, sizeof fail_msg, "%s: got %ld, want %ld (line %d)",
            what, got, want, line);
}

#define CHECK(what, got, want)                                        \
  do {                                                                \
      long got_ = (long)(got), want_ = (long)(want);                    \
      check_at(got_ == want_, what, got_, want_, __LINE__);             \
   } while (0)

static void end(const char *name)
{
   if (group_failed) {
      printf("FAIL %s: %s\n", name, fail_msg);
      failures++;
   } else {
      printf("PASS %s\n", name);
   }
}

/* xorshift64: reproducible pseudo-random numbers for the random groups. */
static unsigned long long rng = 0x2545F4914F6CDD1Dull;
static inline unsigned rnd(unsigned n)
{
   rng ^= rng << 13;
   rng ^= rng >> 7;
   rng ^= rng << 17;
   return (unsigned)(rng % n);
}

#endif
