/* latency-work: three memory-bound kernels for --latency=yes and the
 * time estimate of callgrind-bd_bandwidth --latency (perf/latency.sh):
 *
 *   chase MB STEPS     a list of 64-byte nodes in random order over MB
 *                      megabytes, followed STEPS steps: every step a miss
 *                      whose address is the previous miss's value
 *                      (latency-bound)
 *   stream MB PASSES   sums the 64-bit words of MB megabytes PASSES times:
 *                      misses whose addresses come from a counter
 *                      (bandwidth-bound)
 *   hash MB LOOKUPS    a chained hash table (one 64-byte node per key,
 *                      MB megabytes of nodes, as many buckets as keys),
 *                      LOOKUPS lookups of random present keys: a bucket
 *                      miss, then the node it points to (a dependent
 *                      miss); lookups are independent of each other
 *
 * Each kernel is a function of its own (chase_kernel, stream_kernel,
 * hash_kernel); its native time (CLOCK_MONOTONIC around the call) goes
 * to stdout as "<kernel> seconds <s>". Build with -O2.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct node { struct node *next; uint64_t key; uint64_t pad[6]; } node;  /* 64 bytes */

static uint64_t rng = 88172645463325252ULL;
static uint64_t next_rand(void)
{
   rng ^= rng << 13;
   rng ^= rng >> 7;
   rng ^= rng << 17;
   return rng;
}

static double now(void)
{
   struct timespec t;
   clock_gettime(CLOCK_MONOTONIC, &t);
   return t.tv_sec + t.tv_nsec * 1e-9;
}

static size_t *shuffled(size_t n)
{
   size_t *order = malloc(n * sizeof *order);
   for (size_t i = 0; i < n; i++) order[i] = i;
   for (size_t i = n - 1; i > 0; i--) {
      size_t j = next_rand() % (i + 1), t = order[i];
      order[i] = order[j];
      order[j] = t;
   }
   return order;
}

__attribute__((noinline)) static node *chase_kernel(node *p, long steps)
{
   while (steps-- > 0) p = p->next;
   return p;
}

__attribute__((noinline)) static uint64_t stream_kernel(const uint64_t *a, size_t words, long passes)
{
   uint64_t s0 = 0, s1 = 0;
   while (passes-- > 0)
      for (size_t i = 0; i < words; i += 2) {
         s0 += a[i];
         s1 += a[i + 1];
      }
   return s0 + s1;
}

static uint64_t hash_of(uint64_t key) { return key * 0x9E3779B97F4A7C15ULL; }

__attribute__((noinline)) static long hash_kernel(node **buckets, size_t n, const uint64_t *keys,
                                                  long lookups)
{
   long found = 0;
   for (long i = 0; i < lookups; i++) {
      uint64_t key = keys[i];
      for (node *p = buckets[hash_of(key) % n]; p; p = p->next)
         if (p->key == key) { found++; break; }
   }
   return found;
}

static int run_chase(size_t n, long steps)
{
   node *pool = aligned_alloc(64, n * sizeof(node));
   size_t *order = shuffled(n);
   for (size_t i = 0; i < n; i++) pool[order[i]].next = &pool[order[(i + 1) % n]];
   free(order);
   double t0 = now();
   node *end = chase_kernel(pool, steps);
   printf("chase seconds %.6f (%p)\n", now() - t0, (void *)end);
   return 0;
}

static int run_stream(size_t bytes, long passes)
{
   size_t words = bytes / 8;
   uint64_t *a = aligned_alloc(64, words * 8);
   for (size_t i = 0; i < words; i++) a[i] = i;
   double t0 = now();
   uint64_t s = stream_kernel(a, words, passes);
   printf("stream seconds %.6f (%llu)\n", now() - t0, (unsigned long long)s);
   return 0;
}

static int run_hash(size_t n, long lookups)
{
   node *pool = aligned_alloc(64, n * sizeof(node));
   node **buckets = calloc(n, sizeof *buckets);
   uint64_t *keys = malloc(lookups * sizeof *keys);
   size_t *order = shuffled(n);          /* nodes scattered over the pool */
   for (size_t i = 0; i < n; i++) {
      node *p = &pool[order[i]];
      size_t b = hash_of(i) % n;
      p->key = i;
      p->next = buckets[b];
      buckets[b] = p;
   }
   free(order);
   for (long i = 0; i < lookups; i++) keys[i] = next_rand() % n;
   double t0 = now();
   long found = hash_kernel(buckets, n, keys, lookups);
   printf("hash seconds %.6f (%ld found)\n", now() - t0, found);
   return 0;
}

int main(int argc, char **argv)
{
   if (argc != 4) {
      fprintf(stderr, "usage: latency-work chase|stream|hash MB COUNT\n");
      return 2;
   }
   size_t bytes = (size_t)atol(argv[2]) << 20;
   long count = atol(argv[3]);
   if (!strcmp(argv[1], "chase")) return run_chase(bytes / sizeof(node), count);
   if (!strcmp(argv[1], "stream")) return run_stream(bytes, count);
   if (!strcmp(argv[1], "hash")) return run_hash(bytes / sizeof(node), count);
   fprintf(stderr, "latency-work: unknown kernel '%s'\n", argv[1]);
   return 2;
}
