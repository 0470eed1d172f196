/* Client of tests/tool/bandwidth.py (--bandwidth=yes): kernels written in
 * assembly, so that every instruction, access size and floating-point
 * operation is known by hand.
 *
 *   bandwidth access N   access_kernel, N iterations of
 *                           movq (%rsi),%rax       load 8
 *                           movl %eax,(%rdi)       store 4
 *                           addq $1,(%rdx)         modify 8 (load 8, store 8)
 *                           movdqu (%rsi),%xmm0    load 16
 *                           decq %rcx ; jnz        -
 *                        then ret (load 8).  Per iteration 6 instructions,
 *                        core<-L1 32 bytes, core->L1 12 bytes.
 *   bandwidth sse N      flop_sse: N iterations of addsd mulsd divsd sqrtsd
 *                        (1 each), addpd sqrtpd (2 each), mulps subps (4
 *                        each): 16 flops per iteration.
 *   bandwidth avx N      flop_avx: N iterations of vaddpd ymm (4), vmulps
 *                        ymm (8), vdivps xmm (4), vfmadd231pd ymm (8),
 *                        vfmadd231ss (2), vsqrtpd ymm (4): 30 flops.
 *   bandwidth wb N       store_lines: one 8-byte store into each of N
 *                        consecutive 64-byte lines of a line-aligned
 *                        buffer (N <= 2048), then ret.
 *   bandwidth smc N      run_smc: a loop of N iterations in a buffer,
 *                           1: addsd %xmm1,%xmm0  (1 flop)
 *                              decq %rdi ; jnz 1b ; ret
 *                        run, then its addsd rewritten to orpd (same
 *                        length, no flop) and run, then addsd again and
 *                        run; the translations discarded after each
 *                        rewrite. The same block (address, instruction
 *                        count) with other flops: Flop = 2N.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <valgrind/valgrind.h>

void access_kernel(void *dst, const void *src, long *counter, long n);
void flop_sse(long n);
void flop_avx(long n);
void store_lines(void *buf, long n);

__asm__(
   ".text\n"
   ".globl access_kernel\n"
   ".type access_kernel,@function\n"
   "access_kernel:\n"
   "1: movq (%rsi), %rax\n"
   "   movl %eax, (%rdi)\n"
   "   addq $1, (%rdx)\n"
   "   movdqu (%rsi), %xmm0\n"
   "   decq %rcx\n"
   "   jnz 1b\n"
   "   ret\n"
   ".size access_kernel, .-access_kernel\n"

   ".globl flop_sse\n"
   ".type flop_sse,@function\n"
   "flop_sse:\n"
   "1: addsd %xmm1, %xmm0\n"
   "   mulsd %xmm1, %xmm0\n"
   "   divsd %xmm1, %xmm0\n"
   "   sqrtsd %xmm1, %xmm2\n"
   "   addpd %xmm1, %xmm3\n"
   "   mulps %xmm1, %xmm4\n"
   "   subps %xmm1, %xmm4\n"
   "   sqrtpd %xmm1, %xmm5\n"
   "   decq %rdi\n"
   "   jnz 1b\n"
   "   ret\n"
   ".size flop_sse, .-flop_sse\n"

   ".globl flop_avx\n"
   ".type flop_avx,@function\n"
   "flop_avx:\n"
   "1: vaddpd %ymm1, %ymm2, %ymm3\n"
   "   vmulps %ymm1, %ymm2, %ymm4\n"
   "   vdivps %xmm1, %xmm2, %xmm5\n"
   "   vfmadd231pd %ymm1, %ymm2, %ymm6\n"
   "   vfmadd231ss %xmm1, %xmm2, %xmm7\n"
   "   vsqrtpd %ymm1, %ymm8\n"
   "   decq %rdi\n"
   "   jnz 1b\n"
   "   vzeroupper\n"
   "   ret\n"
   ".size flop_avx, .-flop_avx\n"

   ".globl store_lines\n"
   ".type store_lines,@function\n"
   "store_lines:\n"
   "1: movq %rsi, (%rdi)\n"
   "   addq $64, %rdi\n"
   "   decq %rsi\n"
   "   jnz 1b\n"
   "   ret\n"
   ".size store_lines, .-store_lines\n");

static char src[64] __attribute__((aligned(64)));
static char dst[64] __attribute__((aligned(64)));
static long counter;
static char lines[2048 * 64] __attribute__((aligned(64)));

/* The loop's bytes: addsd %xmm1,%xmm0 (orpd %xmm1,%xmm0 in its place:
 * 66 0f 56 c1); decq %rdi; jnz back to the start; ret. */
static const unsigned char smc_code[] = {
   0xf2, 0x0f, 0x58, 0xc1, 0x48, 0xff, 0xcf, 0x75, 0xf7, 0xc3 };
static const unsigned char smc_orpd[] = { 0x66, 0x0f, 0x56, 0xc1 };

static void smc_write(unsigned char *buf, const unsigned char *first4)
{
   memcpy(buf, first4, 4);
   VALGRIND_DISCARD_TRANSLATIONS(buf, sizeof smc_code);
}

/* (not inlined: --toggle-collect=run_smc collects the three runs) */
__attribute__((noinline)) void run_smc(long n)
{
   unsigned char *buf = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
   void (*loop)(long);
   if (buf == MAP_FAILED) exit(3);
   memcpy(buf, smc_code, sizeof smc_code);
   loop = (void (*)(long))(void *)buf;
   loop(n);
   smc_write(buf, smc_orpd);
   loop(n);
   smc_write(buf, smc_code);
   loop(n);
   munmap(buf, 4096);
}

int main(int argc, char **argv)
{
   long n = argc > 2 ? atol(argv[2]) : 1000;
   if (argc < 2) return 2;
   memset(src, 1, sizeof src);
   if (strcmp(argv[1], "access") == 0) access_kernel(dst, src, &counter, n);
   else if (strcmp(argv[1], "sse") == 0) flop_sse(n);
   else if (strcmp(argv[1], "avx") == 0) flop_avx(n);
   else if (strcmp(argv[1], "wb") == 0 && n <= 2048) store_lines(lines, n);
   else if (strcmp(argv[1], "smc") == 0) run_smc(n);
   else return 2;
   return counter == (strcmp(argv[1], "access") == 0 ? n : 0) ? 0 : 1;
}
