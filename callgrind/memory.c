/* callgrind-bd: the memory the tool's own tables hold, and --max-memory.
 *
 * Rules:
 *   - Every table that can grow while the client runs counts here the
 *     bytes it holds, by kind (global.h): it allocates through
 *     cb_mem_alloc and frees with the size it asked for, or, where the
 *     size is not known at the free (the pure C parts, OSets), through the
 *     tagged allocator whose blocks remember their size. A block counts
 *     what it asked for plus the allocator's bookkeeping (BLOCK_OVERHEAD,
 *     rounded as Valgrind's allocator rounds).
 *   - Not counted: Valgrind's own memory (translations, debug info) and
 *     the client's. The limit is on what this tool keeps, which is what
 *     grows with distinct code, call paths, threads and data objects.
 *   - The limit (--max-memory, default half the machine's physical
 *     memory) is checked at every allocation; passing it only sets
 *     cb_mem_over. The tracker (calltrack.c) looks at the flag at the
 *     start of the next block, before it changes any table, and stops
 *     the run there (main.c's cb_stop_run): the profile of what ran so
 *     far is written, marked incomplete and naming the table that grew
 *     most since the client started (cb_mem_check), and the process
 *     ends with exit status 1. So the tables pass the limit by at most
 *     what one block allocates.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"

#define BLOCK_OVERHEAD 16     /* Valgrind's per-block header, estimated */
#define BLOCK_ALIGN    16
#define TAG_BYTES      16     /* header of a tagged block (keeps alignment) */

static const HChar *kind_name[CB_MEM_KINDS] = {
   "basic blocks", "cost centres", "call arcs", "contexts", "call stacks",
   "functions and files", "back-dating trees", "call paths", "data objects",
   "cache model", "other"
};

static ULong held[CB_MEM_KINDS];      /* bytes now, per kind */
static ULong at_start[CB_MEM_KINDS];  /* when the client started */
static ULong total, peak;
static ULong limit = ~0ULL;
static Bool  limit_given, started;
static const HChar *limit_text;       /* as the user wrote it */
Bool cb_mem_over;

static ULong block_bytes(SizeT asked)
{
   return ((ULong)asked + BLOCK_OVERHEAD + BLOCK_ALIGN - 1) & ~(ULong)(BLOCK_ALIGN - 1);
}

static void count(cb_mem_kind k, ULong bytes)
{
   held[k] += bytes;
   total += bytes;
   if (total > peak) peak = total;
   if (total > limit) cb_mem_over = True;
}

static void uncount(cb_mem_kind k, ULong bytes)
{
   CB_ASSERT(held[k] >= bytes && total >= bytes);
   held[k] -= bytes;
   total -= bytes;
}

ULong cb_mem_total(void) { return total; }

/*------------------------------------------------------------*/
/*--- Counting allocators                                  ---*/
/*------------------------------------------------------------*/

void *cb_mem_alloc(cb_mem_kind k, const HChar *cc, SizeT bytes)
{
   void *p = VG_(malloc)(cc, bytes);
   count(k, block_bytes(bytes));
   return p;
}

void *cb_mem_realloc(cb_mem_kind k, const HChar *cc, void *p,
                     SizeT old_bytes, SizeT new_bytes)
{
   void *q = VG_(realloc)(cc, p, new_bytes);
   if (p) uncount(k, block_bytes(old_bytes));
   count(k, block_bytes(new_bytes));
   return q;
}

void cb_mem_free(cb_mem_kind k, void *p, SizeT bytes)
{
   if (!p) return;
   uncount(k, block_bytes(bytes));
   VG_(free)(p);
}

typedef struct {
   SizeT bytes;
   UInt  kind;
} tag;

void *cb_mem_alloc_tagged(cb_mem_kind k, const HChar *cc, SizeT bytes)
{
   tag *t = cb_mem_alloc(k, cc, bytes + TAG_BYTES);
   t->bytes = bytes + TAG_BYTES;
   t->kind = k;
   return (HChar *)t + TAG_BYTES;
}

void cb_mem_free_tagged(void *p)
{
   tag *t;
   if (!p) return;
   t = (tag *)((HChar *)p - TAG_BYTES);
   cb_mem_free(t->kind, t, t->bytes);
}

/* Names are kept for the whole run: never freed. */
HChar *cb_mem_strdup(cb_mem_kind k, const HChar *cc, const HChar *s)
{
   SizeT n = VG_(strlen)(s) + 1;
   HChar *copy = cb_mem_alloc(k, cc, n);
   VG_(memcpy)(copy, s, n);
   return copy;
}

void *cb_mem_objects_alloc(const HChar *cc, SizeT bytes)
{
   return cb_mem_alloc_tagged(CB_MEM_OBJECTS, cc, bytes);
}

void cb_mem_objects_free(void *p)
{
   cb_mem_free_tagged(p);
}

/*------------------------------------------------------------*/
/*--- The limit                                            ---*/
/*------------------------------------------------------------*/

/* "<digits>[k|m|g|t]" (powers of 1024, either case, an optional B after
 * the unit), at least 1 MiB. */
Bool cb_mem_parse_limit(const HChar *v, const HChar **why)
{
   ULong n = 0, unit = 1;
   const HChar *p = v;
   if (*p < '0' || *p > '9') {
      *why = "expected a size such as 512M or 4G";
      return False;
   }
   for (; *p >= '0' && *p <= '9'; p++) {
      if (n > (~0ULL >> 4) / 10) { *why = "value too large"; return False; }
      n = n * 10 + (ULong)(*p - '0');
   }
   switch (*p) {
   case '\0': break;
   case 'k': case 'K': unit = 1ULL << 10; p++; break;
   case 'm': case 'M': unit = 1ULL << 20; p++; break;
   case 'g': case 'G': unit = 1ULL << 30; p++; break;
   case 't': case 'T': unit = 1ULL << 40; p++; break;
   default: break;
   }
   if (unit > 1 && (*p == 'b' || *p == 'B')) p++;
   if (*p != '\0') {
      *why = "expected a size such as 512M or 4G (units k, m, g, t)";
      return False;
   }
   if (n > (~0ULL >> 4) / unit) { *why = "value too large"; return False; }
   if (n * unit < (1ULL << 20)) { *why = "at least 1M"; return False; }
   limit = n * unit;
   limit_given = True;
   limit_text = v;
   return True;
}

/* MemTotal of /proc/meminfo in bytes, or 0. */
static ULong physical_memory(void)
{
   HChar buf[4096];
   const HChar *p;
   Int fd, n;
   ULong kib = 0;
   SysRes r = VG_(open)("/proc/meminfo", VKI_O_RDONLY, 0);
   if (sr_isError(r)) return 0;
   fd = sr_Res(r);
   n = VG_(read)(fd, buf, sizeof buf - 1);
   VG_(close)(fd);
   if (n <= 0) return 0;
   buf[n] = '\0';
   p = VG_(strstr)(buf, "MemTotal:");
   if (!p) return 0;
   for (p += 9; *p == ' ' || *p == '\t'; p++) {}
   for (; *p >= '0' && *p <= '9'; p++) kib = kib * 10 + (ULong)(*p - '0');
   return kib * 1024;
}

void cb_mem_post_clo_init(void)
{
   if (!limit_given) {
      ULong phys = physical_memory();
      limit = phys > 0 ? phys / 2 : ~0ULL;
   }
   if (total > limit) cb_mem_over = True;
}

/* "123.4 MiB" into buf */
static const HChar *mib(HChar *buf, ULong bytes)
{
   ULong tenths = (bytes * 10 + (1ULL << 19)) >> 20;
   VG_(sprintf)(buf, "%llu.%llu MiB", tenths / 10, tenths % 10);
   return buf;
}

/* The table that grew most since the client started; at the start
 * (a limit below what the fixed tables need) the largest. */
static cb_mem_kind most_grown(void)
{
   cb_mem_kind k, best = CB_MEM_OTHER;
   Long best_growth = -1;
   for (k = 0; k < CB_MEM_KINDS; k++) {
      Long growth = (Long)held[k] - (Long)at_start[k];
      if (growth > best_growth) { best_growth = growth; best = k; }
   }
   if (best_growth > 0) return best;
   for (k = 0; k < CB_MEM_KINDS; k++)
      if (held[k] > held[best]) best = k;
   return best;
}

/* At a safe point: NULL, or, when the limit was passed, why the run must
 * stop (for the profile's trigger; already said on stderr). */
const HChar *cb_mem_check(void)
{
   static HChar trigger[256];
   HChar a[32], b[32], c[32];
   cb_mem_kind k;
   if (!started) {
      /* the client starts: what the tables hold now is the baseline */
      started = True;
      for (k = 0; k < CB_MEM_KINDS; k++) at_start[k] = held[k];
   }
   if (!cb_mem_over) return NULL;
   cb_mem_over = False;
   k = most_grown();
   VG_(snprintf)(trigger, sizeof trigger,
                 "Memory limit reached (--max-memory=%s): %s grew by %s "
                 "to %s, the tables hold %s; profile incomplete",
                 limit_given ? limit_text : "default", kind_name[k],
                 mib(a, held[k] - at_start[k]), mib(b, held[k]), mib(c, total));
   VG_(umsg)("%s\n", trigger);
   VG_(umsg)("Writing the profile of what ran so far and stopping the program "
             "(a larger --max-memory lets it run further).\n");
   return trigger;
}

void cb_mem_print_stats(void)
{
   HChar a[32], b[32], c[32];
   cb_mem_kind k;
   VG_(umsg)("Memory: tables hold %s (peak %s), limit %s\n", mib(a, total),
             mib(b, peak), limit == ~0ULL ? "none" : mib(c, limit));
   for (k = 0; k < CB_MEM_KINDS; k++)
      if (held[k] > 0)
         VG_(umsg)("Memory:   %-20s %s\n", kind_name[k], mib(a, held[k]));
}
