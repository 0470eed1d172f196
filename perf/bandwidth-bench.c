/* bandwidth-bench: this machine's bandwidth per data path of the
 * bandwidth model (--bandwidth=yes), printed as a machine file for
 * --bandwidth-limits and callgrind-bd_bandwidth --limits
 * (docs/manual.md, "Reading bandwidth results"; the format in
 * docs/bandwidth-format.md).
 *
 *   gcc -O3 -pthread -o bandwidth-bench perf/bandwidth-bench.c
 *   ./bandwidth-bench [--quick] [--threads=N] [--mem-mb=M] [--ll-kb=K] > this.machine
 *
 * What each path's figure is: the best of three timings of plain C loops
 * streaming through a buffer sized for that level (the byte counts the
 * model counts on the path, per second):
 *   core<-L1, core->L1  read (64-bit loads, four sums) / write (stores) a
 *                       buffer of half the L1 data cache;
 *   L1<-LL, L1->LL      the same on a buffer of a quarter of the last-level
 *                       cache (at most 8 MB): it misses L1 and hits LL;
 *   LL<-mem, LL->mem    the same on a buffer of M MB (default 4 x LL, 64 to
 *                       256 MB), from one core;
 *   ... all             the same, N threads (default: the online CPUs),
 *                       each on its own 1/N of the buffer, bytes summed;
 *   L1<-L1              two threads on two CPUs take turns: one writes a
 *                       buffer of half L1, the other reads it (its lines come
 *                       from the writer's cache); only the reads are timed.
 * And the latencies of --latency's estimate (callgrind-bd_bandwidth
 * --latency): seconds per step of a chase through 64-byte nodes in
 * random order (each step's address is the last step's value), best of
 * three:
 *   latency L1<-LL      on the LL buffer above;
 *   latency LL<-mem     on the memory buffer (M MB): with 4 kB pages this
 *                       includes the TLB misses such a chase has.
 * LL is the last-level cache sysconf reports (L3, else L2); --ll-kb=K
 * sets it (on a virtual machine whose L3 is not what it says, the L2).
 * The clock is the CPU's maximal frequency (cpufreq) or /proc/cpuinfo's
 * "cpu MHz". instr-per-cycle and flop-per-cycle are not measured: the
 * output says 4 and 4 (the thesis' Ivy Bridge); set them to the core's
 * peak issue width and floating-point operations per cycle.
 *
 * Loops in C, not the hardware's best (no non-temporal stores, no tuned
 * SIMD): the figures are what compiled code reaches, which is what the
 * model's limits should be. On a shared or virtual machine they vary
 * from run to run.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
   double min_seconds;        /* per timing */
   int threads;               /* for the "all" paths */
   size_t l1, ll, mem;        /* buffer sizes in bytes */
} bench_config;

static volatile uint64_t sink;   /* keeps the sums alive */

static double now(void)
{
   struct timespec t;
   clock_gettime(CLOCK_MONOTONIC, &t);
   return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint64_t read_pass(const uint64_t *p, size_t words)
{
   uint64_t a = 0, b = 0, c = 0, d = 0;
   for (size_t i = 0; i + 4 <= words; i += 4) {
      a += p[i];
      b += p[i + 1];
      c += p[i + 2];
      d += p[i + 3];
   }
   return a + b + c + d;
}

static void write_pass(uint64_t *p, size_t words, uint64_t value)
{
   for (size_t i = 0; i < words; i++)
      p[i] = value;
}

/* Bytes per second of passes over buf (reading or writing), repeated for
 * at least min_seconds; the best of three. */
/* Seconds per step of a chase through the buffer's 64-byte lines in a
 * random cyclic order, best of three timings of at least min_seconds. */
static double chase_latency(char *buf, size_t bytes, double min_seconds)
{
   size_t n = bytes / 64, *order = malloc(n * sizeof *order);
   uint64_t r = 88172645463325252ULL;
   double best = 0;
   for (size_t i = 0; i < n; i++) order[i] = i;
   for (size_t i = n - 1; i > 0; i--) {
      r ^= r << 13; r ^= r >> 7; r ^= r << 17;
      size_t j = r % (i + 1), t = order[i];
      order[i] = order[j];
      order[j] = t;
   }
   for (size_t i = 0; i < n; i++) *(void **)(buf + order[i] * 64) = buf + order[(i + 1) % n] * 64;
   free(order);
   void *p = buf;
   for (size_t i = 0; i < n; i++) p = *(void **)p;          /* warm */
   for (int k = 0; k < 3; k++) {
      long steps = 0;
      double t0 = now(), t;
      do {
         for (int i = 0; i < 100000; i++) p = *(void **)p;
         steps += 100000;
      } while ((t = now()) - t0 < min_seconds);
      double per = (t - t0) / steps;
      if (k == 0 || per < best) best = per;
   }
   sink += (uint64_t)(uintptr_t)p;
   return best;
}

static double stream(uint64_t *buf, size_t bytes, int writing, double min_seconds)
{
   double best = 0;
   size_t words = bytes / 8;
   write_pass(buf, words, 1);            /* touch: no page faults timed */
   for (int trial = 0; trial < 3; trial++) {
      double start = now(), elapsed;
      size_t passes = 0;
      do {
         if (writing)
            write_pass(buf, words, passes);
         else
            sink += read_pass(buf, words);
         passes++;
         elapsed = now() - start;
      } while (elapsed < min_seconds);
      double rate = (double)bytes * passes / elapsed;
      if (rate > best)
         best = rate;
   }
   return best;
}

static uint64_t *buffer(size_t bytes)
{
   void *p = NULL;
   if (posix_memalign(&p, 4096, bytes)) {
      fprintf(stderr, "bandwidth-bench: cannot allocate %zu bytes\n", bytes);
      exit(1);
   }
   return p;
}

static void pin(int cpu)
{
   cpu_set_t set;
   long cpus = sysconf(_SC_NPROCESSORS_ONLN);
   CPU_ZERO(&set);
   CPU_SET(cpu % (cpus > 0 ? cpus : 1), &set);
   pthread_setaffinity_np(pthread_self(), sizeof set, &set);   /* best effort */
}

/* ---- all cores: N threads, each streaming its own part ---- */

typedef struct {
   const bench_config *config;
   int index, writing;
   size_t bytes;
   double rate;
   pthread_barrier_t *start;
} part_job;

static void *part_stream(void *arg)
{
   part_job *job = arg;
   pin(job->index);
   uint64_t *buf = buffer(job->bytes);
   write_pass(buf, job->bytes / 8, 1);
   pthread_barrier_wait(job->start);
   job->rate = stream(buf, job->bytes, job->writing, job->config->min_seconds);
   free(buf);
   return NULL;
}

static double stream_all(const bench_config *config, int writing)
{
   int n = config->threads;
   pthread_t ids[n];
   part_job jobs[n];
   pthread_barrier_t start;
   pthread_barrier_init(&start, NULL, n);
   for (int t = 0; t < n; t++) {
      jobs[t] = (part_job){ config, t, writing, config->mem / n, 0, &start };
      pthread_create(&ids[t], NULL, part_stream, &jobs[t]);
   }
   double sum = 0;
   for (int t = 0; t < n; t++) {
      pthread_join(ids[t], NULL);
      sum += jobs[t].rate;
   }
   pthread_barrier_destroy(&start);
   return sum;
}

/* ---- core to core: a writer and a reader take turns on one buffer ---- */

typedef struct {
   uint64_t *buf;
   size_t bytes;
   long rounds;
   int turn;                  /* even: the writer's, odd: the reader's */
   double read_seconds;
} pingpong;

static void wait_turn(pingpong *pp, int parity, long round)
{
   while (__atomic_load_n(&pp->turn, __ATOMIC_ACQUIRE) != 2 * round + parity)
      sched_yield();
}

static void *pp_writer(void *arg)
{
   pingpong *pp = arg;
   pin(0);
   for (long r = 0; r < pp->rounds; r++) {
      wait_turn(pp, 0, r);
      write_pass(pp->buf, pp->bytes / 8, r);
      __atomic_store_n(&pp->turn, 2 * r + 1, __ATOMIC_RELEASE);
   }
   return NULL;
}

static void *pp_reader(void *arg)
{
   pingpong *pp = arg;
   pin(1);
   for (long r = 0; r < pp->rounds; r++) {
      wait_turn(pp, 1, r);
      double start = now();
      sink += read_pass(pp->buf, pp->bytes / 8);
      pp->read_seconds += now() - start;
      __atomic_store_n(&pp->turn, 2 * r + 2, __ATOMIC_RELEASE);
   }
   return NULL;
}

static double core_to_core(const bench_config *config)
{
   pingpong pp = { buffer(config->l1), config->l1, 0, 0, 0 };
   /* rounds for about min_seconds of reading at a guessed 10 GB/s */
   pp.rounds = (long)(config->min_seconds * 1e10 / config->l1) + 100;
   pthread_t w, r;
   pthread_create(&w, NULL, pp_writer, &pp);
   pthread_create(&r, NULL, pp_reader, &pp);
   pthread_join(w, NULL);
   pthread_join(r, NULL);
   free(pp.buf);
   return (double)pp.bytes * pp.rounds / pp.read_seconds;
}

/* ---- the machine ---- */

static double clock_hz(void)
{
   FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
   double khz = 0, mhz = 0;
   if (f) {
      if (fscanf(f, "%lf", &khz) != 1)
         khz = 0;
      fclose(f);
      if (khz > 0)
         return khz * 1e3;
   }
   f = fopen("/proc/cpuinfo", "r");
   char line[256];
   while (f && fgets(line, sizeof line, f))
      if (sscanf(line, "cpu MHz : %lf", &mhz) == 1)
         break;
   if (f)
      fclose(f);
   return mhz > 0 ? mhz * 1e6 : 1e9;
}

static void model_name(char *name, size_t size)
{
   FILE *f = fopen("/proc/cpuinfo", "r");
   char line[256];
   snprintf(name, size, "this machine");
   while (f && fgets(line, sizeof line, f)) {
      char *colon = strchr(line, ':');
      if (!strncmp(line, "model name", 10) && colon) {
         snprintf(name, size, "%s", colon + 2);
         name[strcspn(name, "\n#")] = 0;
         break;
      }
   }
   if (f)
      fclose(f);
}

static size_t cache_size(int name, size_t fallback)
{
   long v = sysconf(name);
   return v > 0 ? (size_t)v : fallback;
}

/* The LL buffer (a quarter of LL, at most 8 MB) and, unless --mem-mb
 * was given, the memory buffer (4 x LL, 64 to 256 MB). */
static void set_ll(bench_config *c, size_t ll, int mem_given)
{
   c->ll = ll / 4 > (8u << 20) ? (8u << 20) : ll / 4;
   if (c->ll < 4 * c->l1)
      c->ll = 4 * c->l1;
   if (mem_given)
      return;
   c->mem = 4 * ll;
   if (c->mem < (64u << 20))
      c->mem = 64u << 20;
   if (c->mem > (256u << 20))
      c->mem = 256u << 20;
}

static int configure(bench_config *c, int argc, char **argv)
{
   long cpus = sysconf(_SC_NPROCESSORS_ONLN);
   size_t ll = cache_size(_SC_LEVEL3_CACHE_SIZE, 0);
   int mem_given = 0;
   if (!ll)
      ll = cache_size(_SC_LEVEL2_CACHE_SIZE, 1 << 20);
   c->min_seconds = 0.2;
   c->threads = cpus > 0 ? (int)cpus : 1;
   c->l1 = cache_size(_SC_LEVEL1_DCACHE_SIZE, 32768) / 2;
   for (int i = 1; i < argc; i++)
      mem_given |= !strncmp(argv[i], "--mem-mb=", 9);
   set_ll(c, ll, mem_given);
   for (int i = 1; i < argc; i++) {
      if (!strcmp(argv[i], "--quick"))
         c->min_seconds = 0.02;
      else if (!strncmp(argv[i], "--threads=", 10) && atoi(argv[i] + 10) > 0)
         c->threads = atoi(argv[i] + 10);
      else if (!strncmp(argv[i], "--mem-mb=", 9) && atoi(argv[i] + 9) > 0)
         c->mem = (size_t)atoi(argv[i] + 9) << 20;
      else if (!strncmp(argv[i], "--ll-kb=", 8) && atoi(argv[i] + 8) > 0)
         set_ll(c, (size_t)atoi(argv[i] + 8) << 10, mem_given);
      else {
         fprintf(stderr, "bandwidth-bench: bad argument '%s'\n"
                 "usage: bandwidth-bench [--quick] [--threads=N] [--mem-mb=M] [--ll-kb=K]\n",
                 argv[i]);
         return 2;
      }
   }
   return 0;
}

int main(int argc, char **argv)
{
   bench_config c;
   char name[200];
   if (configure(&c, argc, argv))
      return 2;
   model_name(name, sizeof name);
   uint64_t *small = buffer(c.l1), *mid = buffer(c.ll), *big = buffer(c.mem);
   double r_l1 = stream(small, c.l1, 0, c.min_seconds);
   double w_l1 = stream(small, c.l1, 1, c.min_seconds);
   double r_ll = stream(mid, c.ll, 0, c.min_seconds);
   double w_ll = stream(mid, c.ll, 1, c.min_seconds);
   double r_mem = stream(big, c.mem, 0, c.min_seconds);
   double w_mem = stream(big, c.mem, 1, c.min_seconds);
   free(small);
   free(mid);
   free(big);
   double r_all = stream_all(&c, 0), w_all = stream_all(&c, 1);
   double c2c = core_to_core(&c);
   char *lat_buf = (char *)buffer(c.mem);
   double lat_ll = chase_latency(lat_buf, c.ll, c.min_seconds / 2);
   double lat_mem = chase_latency(lat_buf, c.mem, c.min_seconds / 2);
   free(lat_buf);

   printf("# measured by perf/bandwidth-bench.c (%s): buffers L1 %zu kB, LL %zu kB,\n"
          "# memory %zu MB; %d thread(s) for the 'all' paths. Bytes per second.\n"
          "# instr-per-cycle and flop-per-cycle are NOT measured: set them to the\n"
          "# core's peak (4 and 4 are the thesis' Ivy Bridge).\n",
          c.min_seconds < 0.1 ? "--quick" : "full", c.l1 >> 10, c.ll >> 10,
          c.mem >> 20, c.threads);
   printf("name: %s (measured)\n", name);
   printf("clock: %.4g\n", clock_hz());
   printf("instr-per-cycle: 4\nflop-per-cycle: 4\n");
   printf("core<-L1: %.4g\ncore->L1: %.4g\n", r_l1, w_l1);
   printf("L1<-LL: %.4g\nL1->LL: %.4g\n", r_ll, w_ll);
   printf("L1<-L1: %.4g\n", c2c);
   printf("LL<-mem: %.4g\nLL->mem: %.4g\n", r_mem, w_mem);
   printf("LL<-mem all: %.4g\nLL->mem all: %.4g\n", r_all, w_all);
   printf("# seconds per dependent miss (a chase): served by LL, by memory\n");
   printf("latency L1<-LL: %.4g\nlatency LL<-mem: %.4g\n", lat_ll, lat_mem);
   return 0;
}
