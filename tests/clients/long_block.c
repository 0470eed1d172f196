/* long_block.c -- basic blocks with more data accesses than the deferred
   simulation's address buffer holds (REPLAY_ADDRS = 64 in
   callgrind/sim.c), so each run of them is replayed in parts
   (replay_part in the middle of the block); tests/tool/defer_sim.py.
   Built with -O2: each copy function is its asm and a `ret` (masked
   also the addresses of its operands and gcc's vzeroupper), 47 and 46
   instructions (gcc 12), under VEX's limit of 50 per block, and nothing
   in them ends a block (a non-rep movs only reads the direction flag).

   copy40:  40 movsq (each a load and a store: 80 accesses), laid out on
            its 64-byte-aligned I1 lines as 32 movsq | movsq, 6 movabs,
            movsq | 6 movsq, ret.
   masked:  19 movsq, a vmaskmovps load and a vmaskmovps store (VEX makes
            them 8 guarded loads and 8 guarded stores; the mask takes
            every other lane, so half are skipped), 19 more movsq: 93
            accesses with the mask's load, 16 of them guarded. Only where the CPU (as Valgrind
            shows it) has AVX; else copy40 again.

   Arguments: none, or "fault": at last copy40 copies from the last 35
   longs of a page followed by an inaccessible one, so its 36th movsq
   faults (SIGSEGV), on its third I1 line: the calls of the second line
   have overflowed the buffer and replayed the first part (the first
   line's 64 accesses), and the second part is pending. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define ROUNDS 500
#define MOVS   40

static long src[MOVS], dst[MOVS];
static float fsrc[8], fdst[8];
/* a lane is on where its sign bit is set */
static const float mask[8] = { -1, 0, -1, 0, -1, 0, -1, 0 };

__attribute__((noinline, aligned(64))) void copy40(long *d, const long *s)
{
    /* I1 lines of 64 bytes: 32 movsq; movsq, 6 movabs (10 bytes, no
       access), movsq; 6 movsq and the ret */
    __asm__ volatile(".rept 32\n\tmovsq\n\t.endr\n\t"
                     "movsq\n\t"
                     ".rept 6\n\tmovabsq $0x0123456789abcdef, %%rax\n\t"
                     ".endr\n\t"
                     "movsq\n\t"
                     ".rept 6\n\tmovsq\n\t.endr"
                     : "+D"(d), "+S"(s) : : "memory", "rax");
}

__attribute__((noinline, aligned(64), target("avx")))
void masked(long *d, const long *s)
{
    __asm__ volatile("vmovups (%2), %%ymm1\n\t"
                     ".rept 19\n\tmovsq\n\t.endr\n\t"
                     "vmaskmovps (%3), %%ymm1, %%ymm0\n\t"
                     "vmaskmovps %%ymm0, %%ymm1, (%4)\n\t"
                     ".rept 19\n\tmovsq\n\t.endr"
                     : "+D"(d), "+S"(s)
                     : "r"(mask), "r"(fsrc), "r"(fdst)
                     : "memory", "xmm0", "xmm1");
}

/* copy40 from the last 35 longs of a page followed by one with no access */
static void fault(void)
{
    long page = sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED || mprotect(p + page, page, PROT_NONE) != 0) {
        perror("long_block");
        return;
    }
    fflush(stdout);
    copy40(dst, (const long *)(p + page) - 35);
}

int main(int argc, char **argv)
{
    int avx = __builtin_cpu_supports("avx");
    long sum = 0;
    for (int i = 0; i < MOVS; i++) src[i] = i;
    for (int i = 0; i < 8; i++) fsrc[i] = i;
    for (int r = 0; r < ROUNDS; r++) {
        copy40(dst, src);
        if (avx) masked(dst, src);
        else copy40(dst, src);
        sum += dst[r % MOVS];
    }
    printf("long_block: %ld %g %s\n", sum, fdst[2], avx ? "avx" : "no avx");
    if (argc > 1 && strcmp(argv[1], "fault") == 0) fault();
    return 0;
}
