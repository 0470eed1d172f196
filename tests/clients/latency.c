/* Dependent misses (--latency=yes) whose counts follow from the code by
 * construction: the kernels are assembly, so no compiler decides where
 * a value lives, and main passes them addresses of static arrays (lea:
 * tag 0; a pointer reloaded from main's stack after a flush would have
 * missed and started a chain). Run with --D1=4096,2,64 --LL=65536,4,64 (tests/tool/
 * latency.py): D1 holds 64 lines (32 sets x 2), LL 1024 (256 sets x 4).
 *
 * Before each kernel, flush_ll() reads 2048 lines (128 KiB, 8 per LL set,
 * 64 per D1 set): nothing used before is left in D1 or LL. Every kernel
 * touches N = 32 lines nobody touched since, one per node, so each of
 * its node reads misses D1 and LL; only ll_chain's nodes are first
 * loaded into LL (warm) and evicted from D1 alone (flush_d1: 128 lines).
 *
 *   chase_reg   p = *p, 32 times, p in %rdi: the k-th read's address is
 *               the (k-1)-th read's value: D1dep = DLdep = 31, longest 32
 *   chase_stack the same chase, p kept in a stack slot: reloaded (a hit),
 *               followed, stored back, the register cleared each time:
 *               the tag goes through memory: D1dep = DLdep = 31
 *   indep       32 reads at base + 64 i, i an induction variable: 0, 0
 *   hitdep      p = *slot (a hit: the slot's line is used every time),
 *               read *p (a miss), *slot = p + 64: the missing reads'
 *               addresses come from reads that hit: 0, 0
 *   two_level   p = table[i] (a miss, independent), read *p (a miss that
 *               depends on it): 32 chains of 2: D1dep = DLdep = 32
 *   ll_chain    chase_reg's code over nodes in LL but not in D1: D1dep = 31,
 *               DLdep = 0 (no LL miss at all), longest D1 32, LL 0
 */
#include <stdint.h>
#include <stdlib.h>
#ifdef THREADS
#include <pthread.h>
#endif

#define N 32
#define LINE 64

/* page-aligned: each array starts in D1 set 0 (a larger alignment gives
 * the bss a LOAD segment of its own, and Valgrind then reads no symbols) */
static char nodes_a[N * 2 * LINE] __attribute__((aligned(4096)));
static char nodes_b[N * 2 * LINE] __attribute__((aligned(4096)));
static char buf_c[N * LINE] __attribute__((aligned(4096)));
static char buf_d[N * LINE] __attribute__((aligned(4096)));
static char table_e[N * LINE] __attribute__((aligned(4096)));
static char targets_e[N * LINE] __attribute__((aligned(4096)));
static char nodes_f[N * 2 * LINE] __attribute__((aligned(4096)));
char flush_buf[2048 * LINE] __attribute__((aligned(4096)));   /* (asm) */
static void *slot_d;

void *chase_reg(void *p, long n);
void *ll_chain(void *p, long n);
void *chase_stack(void *p, long n);
void indep(void *base, long n);
void hitdep(void **slot, void *base, long n);
void two_level(void *table, long n);
void touch_lines(void *base, long lines);   /* one read per line */
void flush_chase(void *p, long n);

__asm__(
"    .text\n"
"    .globl chase_reg\n"
"    .type chase_reg, @function\n"
"chase_reg:\n"                  /* rdi = p, rsi = n */
"    xorl %eax, %eax\n"         /* (a loop head at the entry would be a
                                 * recursion to the reference) */
"1:  movq (%rdi), %rdi\n"
"    decq %rsi\n"
"    jnz 1b\n"
"    movq %rdi, %rax\n"
"    ret\n"
"    .size chase_reg, .-chase_reg\n"
"    .globl ll_chain\n"
"    .type ll_chain, @function\n"
"ll_chain:\n"                   /* the same, another function */
"    xorl %eax, %eax\n"
"7:  movq (%rdi), %rdi\n"
"    decq %rsi\n"
"    jnz 7b\n"
"    movq %rdi, %rax\n"
"    ret\n"
"    .size ll_chain, .-ll_chain\n"
"    .globl chase_stack\n"
"    .type chase_stack, @function\n"
"chase_stack:\n"
"    subq $8, %rsp\n"
"    movq %rdi, (%rsp)\n"
"    xorl %edi, %edi\n"
"2:  movq (%rsp), %rax\n"       /* reload: a hit */
"    movq (%rax), %rax\n"       /* the chase */
"    movq %rax, (%rsp)\n"       /* spill */
"    xorl %eax, %eax\n"         /* no copy left in a register */
"    decq %rsi\n"
"    jnz 2b\n"
"    movq (%rsp), %rax\n"
"    addq $8, %rsp\n"
"    ret\n"
"    .size chase_stack, .-chase_stack\n"
"    .globl indep\n"
"    .type indep, @function\n"
"indep:\n"                      /* rdi = base, rsi = n */
"    xorl %ecx, %ecx\n"
"3:  movq %rcx, %rdx\n"
"    shlq $6, %rdx\n"
"    movq (%rdi,%rdx), %rax\n"
"    incq %rcx\n"
"    cmpq %rsi, %rcx\n"
"    jne 3b\n"
"    ret\n"
"    .size indep, .-indep\n"
"    .globl hitdep\n"
"    .type hitdep, @function\n"
"hitdep:\n"                     /* rdi = slot, rsi = base, rdx = n */
"    movq %rsi, (%rdi)\n"
"    xorl %esi, %esi\n"
"4:  movq (%rdi), %rax\n"       /* the slot: a hit */
"    movq (%rax), %rcx\n"       /* a miss, its address from a hit */
"    addq $64, %rax\n"
"    movq %rax, (%rdi)\n"
"    decq %rdx\n"
"    jnz 4b\n"
"    ret\n"
"    .size hitdep, .-hitdep\n"
"    .globl two_level\n"
"    .type two_level, @function\n"
"two_level:\n"                  /* rdi = table, rsi = n */
"    xorl %ecx, %ecx\n"
"5:  movq %rcx, %rdx\n"
"    shlq $6, %rdx\n"
"    movq (%rdi,%rdx), %rax\n"  /* table[i]: a miss */
"    movq (%rax), %rax\n"       /* *table[i]: a dependent miss */
"    incq %rcx\n"
"    cmpq %rsi, %rcx\n"
"    jne 5b\n"
"    ret\n"
"    .size two_level, .-two_level\n"
"    .globl flush_chase\n"
"    .type flush_chase, @function\n"
"flush_chase:\n"                /* rdi = p, rsi = n: flush_ll, chase_reg */
"    pushq %rbx\n"
"    pushq %r12\n"
"    movq %rdi, %rbx\n"          /* (registers keep their tag 0: a */
"    movq %rsi, %r12\n"          /* pointer reloaded would have missed) */
"    leaq flush_buf(%rip), %rdi\n"
"    movl $2048, %esi\n"
"    call touch_lines\n"
"    movq %rbx, %rdi\n"
"    movq %r12, %rsi\n"
"    call chase_reg\n"
"    popq %r12\n"
"    popq %rbx\n"
"    ret\n"
"    .size flush_chase, .-flush_chase\n"
"    .globl touch_lines\n"
"    .type touch_lines, @function\n"
"touch_lines:\n"                /* rdi = base, rsi = lines */
"    xorl %eax, %eax\n"
"6:  movzbl (%rdi), %eax\n"
"    addq $64, %rdi\n"
"    decq %rsi\n"
"    jnz 6b\n"
"    ret\n"
"    .size touch_lines, .-touch_lines\n"
);

/* node k's first word points to node k+1, nodes `stride` bytes apart */
static void link_nodes(char *base, long stride)
{
   long k;
   for (k = 0; k < N; k++)
      *(void **)(base + k * stride) = k + 1 < N ? base + (k + 1) * stride : NULL;
}

static void flush_ll(void) { touch_lines(flush_buf, 2048); }
static void flush_d1(void) { touch_lines(flush_buf, 128); }

#ifdef THREADS
/* Built with -DTHREADS (latency_threads): two threads, each links its
 * own nodes, flushes and chases them with chase_reg (flush_chase: the
 * pointer stays in a register; reloaded from the stack after the flush
 * it would have missed and started the chain). Whatever the
 * threads' interleaving, nothing touches a thread's nodes between its
 * flush and its chase: 31 dependent misses per thread and level (62 in
 * chase_reg), each thread's tags its own. */
static char nodes_t[2][N * 2 * LINE] __attribute__((aligned(4096)));

static void *chaser(void *arg)
{
   link_nodes(arg, 2 * LINE);
   flush_chase(arg, N);
   return NULL;
}

int main(void)
{
   pthread_t t[2];
   int k;
   for (k = 0; k < 2; k++) pthread_create(&t[k], NULL, chaser, nodes_t[k]);
   for (k = 0; k < 2; k++) pthread_join(t[k], NULL);
   return 0;
}
#else
int main(void)
{
   long k;
   link_nodes(nodes_a, 2 * LINE);
   link_nodes(nodes_b, 2 * LINE);
   link_nodes(nodes_f, 2 * LINE);
   for (k = 0; k < N; k++) *(void **)(table_e + k * LINE) = targets_e + k * LINE;

   flush_ll();
   chase_reg(nodes_a, N);
   flush_ll();
   chase_stack(nodes_b, N);
   flush_ll();
   indep(buf_c, N);
   flush_ll();
   hitdep(&slot_d, buf_d, N);
   flush_ll();
   two_level(table_e, N);
   flush_ll();
   touch_lines(nodes_f, 2 * N);      /* into LL (and D1) */
   flush_d1();                       /* out of D1 only */
   ll_chain(nodes_f, N);
   return 0;
}
#endif
