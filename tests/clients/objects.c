/* Data-object test client (tests/tool/objects.py derives its expected
   per-object costs by hand from the access patterns below).

   Every array is line-aligned (64-byte lines in the test).  The loops
   below never touch the first and the last line of a heap block: the
   allocator may write there (chunk headers, free-list links), and then
   those lines would not be cold, or would be shared.  The measured arrays
   are not freed (free writes links into the first line).

     stream  posix_memalign, 514 lines; one int read in lines 1..512
     full    aligned_alloc,  258 lines; every int of lines 1..256 read
     table   static,         128 lines; the first 8 ints of each line read
     rbuf    aligned_alloc,   64 lines, then realloc'ed to 128 lines; the
             first int written in lines 1..30 before the realloc and in
             lines 66..126 after it
     rows    1000 blocks from one call site (make_rows); one int written
             in each
     mapped  16 pages mmap'ed (anonymous) by map_region, one int written
             in lines 1..100, then munmap'ed

   With argument "move", another block is allocated right after rbuf so
   that the realloc must move it (the memcpy inside realloc then touches
   rbuf's lines too, so only access counts are derived for that run). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE 64
#define INTS_PER_LINE (LINE / (int)sizeof(int))

static int table[128 * INTS_PER_LINE] __attribute__((aligned(LINE)));

static int *make_row(void) { return malloc(4 * sizeof(int)); }

static int **make_rows(int n)
{
   int **rows = malloc(n * sizeof *rows);
   for (int i = 0; i < n; i++) rows[i] = make_row();
   return rows;
}

static long read_stream(const int *a, int lines)
{
   long s = 0;
   for (int i = 0; i < lines; i++) s += a[i * INTS_PER_LINE];
   return s;
}

static long read_full(const int *a, int lines)
{
   long s = 0;
   for (int i = 0; i < lines * INTS_PER_LINE; i++) s += a[i];
   return s;
}

static long read_table(void)
{
   long s = 0;
   for (int l = 0; l < 128; l++)
      for (int k = 0; k < 8; k++) s += table[l * INTS_PER_LINE + k];
   return s;
}

static void write_lines(int *a, int first, int last)
{
   for (int l = first; l <= last; l++) a[l * INTS_PER_LINE] = l;
}

int main(int argc, char **argv)
{
   int move = argc > 1 && strcmp(argv[1], "move") == 0;
   int *stream, *full, *rbuf, *blocker = NULL;
   int **rows;
   long s = 0;

   if (posix_memalign((void **)&stream, LINE, 514 * LINE) != 0) return 1;
   full = aligned_alloc(LINE, 258 * LINE);
   rows = make_rows(1000);
   rbuf = aligned_alloc(LINE, 64 * LINE);
   if (move) blocker = malloc(16);
   if (!full || !rbuf) return 1;

   s += read_stream(stream + INTS_PER_LINE, 512);
   s += read_full(full + INTS_PER_LINE, 256);
   s += read_table();
   write_lines(rbuf, 1, 30);
   {
      int *old = rbuf;
      rbuf = realloc(rbuf, 128 * LINE);
      if (!rbuf) return 1;
      write_lines(rbuf, 66, 126);
      for (int i = 0; i < 1000; i++) rows[i][0] = i;
      printf("realloc %s; sum %ld\n", rbuf == old ? "in place" : "moved", s);
   }
   for (int i = 0; i < 1000; i++) free(rows[i]);
   free(rows);
   free(blocker);
   {
      long map_region(void);        /* below: memory mmap'ed directly */
      if (map_region() != 100) return 1;
   }
   return 0;
}

#include <sys/mman.h>

/* mapped: 16 pages mapped anonymously outside the allocator (a heap object
   named by this call site), one int written in lines 1..100, unmapped. */
long map_region(void)
{
   int *m = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
   long n = 0;
   if (m == MAP_FAILED) return -1;
   for (int l = 1; l <= 100; l++, n++) m[l * INTS_PER_LINE] = l;
   munmap(m, 16 * 4096);
   return n;
}
