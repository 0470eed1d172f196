/* Two threads on disjoint fields of one struct that fills one 64-byte
   line, for the false sharing report's byte ranges (tests/tool/sharing.py
   derives the expected ranges from the offsets this program prints):
     the first thread created (Valgrind's thread 2), in bump_wide, reads
     rec.flag and increments rec.wide (a load and a store of its 8
     bytes), 100 times;
     the second (thread 3), in set_narrow, stores rec.narrow and then
     rec.tiny, 100 times.
   The threads wait for each other at a semaphore gate (no barrier: one
   segment), so both are alive at once and have different thread ids.
   Five instructions touch the line: built without symbols, each must
   keep a label of its own in the report's code list. */
#include <stddef.h>
#include <stdio.h>
#include "two_threads.h"

static struct rec {
   int flag;
   long wide;
   short narrow;
   char tiny;
   char pad[64 - 19];                /* the line holds nothing else */
} rec __attribute__((aligned(64)));

__attribute__((noinline)) static void bump_wide(void)
{
   volatile struct rec *r = &rec;
   for (int i = 0; i < 100; i++)
      if (r->flag == 0)
         r->wide++;
}

__attribute__((noinline)) static void set_narrow(void)
{
   volatile struct rec *r = &rec;
   for (int i = 0; i < 100; i++) {
      r->narrow = (short)i;
      r->tiny = (char)i;
   }
}

static void *worker(void *arg)
{
   wait_for_go();
   if (arg) set_narrow();
   else bump_wide();
   return NULL;
}

int main(void)
{
   run_two_together(worker);
   printf("offsets flag %zu %zu wide %zu %zu narrow %zu %zu tiny %zu %zu\n",
          offsetof(struct rec, flag), sizeof rec.flag, offsetof(struct rec, wide),
          sizeof rec.wide, offsetof(struct rec, narrow), sizeof rec.narrow,
          offsetof(struct rec, tiny), sizeof rec.tiny);
   return 0;
}
