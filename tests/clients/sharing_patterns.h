/* The data of the two-thread sharing clients (sharing.c, interleave.c),
   PATTERN selecting what thread `me` (0 or 1) bumps:
     0 (false sharing): field a or b of one 64-byte line;
     1 (true sharing):  the one counter of its own line;
     2 (padded):        a or b, each on a line of its own.
   Each datum is aligned and padded to whole 64-byte lines, so no other
   variable shares them. */
#ifndef PATTERN
#define PATTERN 0
#endif

static struct {
   long a, b;
   char pad[48];
} pair __attribute__((aligned(64)));

static struct {
   long counter;
   char pad[56];
} shared __attribute__((aligned(64)));

static struct {
   long a;
   char pad_a[56];
   long b;
   char pad_b[56];
} padded __attribute__((aligned(64)));

static long *target(int me)
{
   switch (PATTERN) {
   case 0:  return me ? &pair.b : &pair.a;
   case 1:  return &shared.counter;
   default: return me ? &padded.b : &padded.a;
   }
}
