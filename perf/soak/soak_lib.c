/* The library perf/soak/soak.c dlopens and dlcloses (soak dlopen N LIB). */
static long table[64];

long soak_lib_work(long n)
{
   long i, s = 0;
   for (i = 0; i < n; i++) {
      table[i % 64] += i;
      s += table[(i * 7) % 64];
   }
   return s;
}
