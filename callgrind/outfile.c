/* callgrind-bd: buffered output of a profile file with error reporting,
 * shared by the profile writer (dump.c) and the objects profile
 * (objects_dump.c).
 *
 * A write error is reported once, naming the file, and the rest of that
 * file is dropped: the profile is incomplete, and the user must know.
 * VG_(write) hides errno, so the message names the usual causes.
 *
 * Also the cmd: line, as the profile and the bandwidth file write it.
 *
 * Copyright (C) 2026 the callgrind-bd authors.  GPL-2.0-or-later.
 */
#include "global.h"

/* Linux's errno for a file name (or one of its components) longer than
 * the file system takes: not among the core's VKI_ names (36 on every
 * Linux architecture but MIPS). */
#if !defined(VKI_ENAMETOOLONG) && !defined(VGA_mips32) && !defined(VGA_mips64)
#define VKI_ENAMETOOLONG 36
#endif

/* Why a file could not be opened, for the one-line error (a profile to
 * write, a machine file to read). */
const HChar *cb_open_error_text(UWord err)
{
   switch (err) {
#if defined(VKI_ENAMETOOLONG)
   case VKI_ENAMETOOLONG: return "file name too long";
#endif
   case VKI_ENOENT:  return "no such file or directory";
   case VKI_ENOTDIR: return "a path component is not a directory";
   case VKI_EACCES:  return "permission denied";
   case VKI_EROFS:   return "read-only file system";
   case VKI_EISDIR:  return "is a directory";
   case VKI_ENOSPC:  return "no space left on device";
   default:          return "cannot open it";
   }
}

void cb_out_start(cb_outfile *f, Int fd, const HChar *name, const HChar *what)
{
   f->fd = fd;
   f->name = name;
   f->what = what;
   f->failed = False;
   f->used = 0;
}

void cb_out_flush(cb_outfile *f)
{
   Int done = 0;
   while (done < f->used && !f->failed) {
      Int n = VG_(write)(f->fd, f->buf + done, f->used - done);
      if (n <= 0) {
         f->failed = True;
         VG_(message)(Vg_UserMsg, "callgrind-bd: error writing %s '%s': "
                      "it is incomplete (disk full, file size limit or "
                      "I/O error)\n", f->what, f->name);
      }
      done += n > 0 ? n : 0;
   }
   f->used = 0;
}

void cb_out_str(cb_outfile *f, const HChar *s)
{
   while (*s) {
      if (f->used == (Int)sizeof f->buf) cb_out_flush(f);
      f->buf[f->used++] = *s++;
   }
}

/* How many decimal digits v takes (1 to 20). */
static Int decimal_length(ULong v)
{
   Int n = 1;
   ULong p = 10;
   while (n < 20 && v >= p) { n++; p *= 10; }
   return n;
}

/* v in decimal, without printf: the numbers are most of a profile, and a
 * printf each was a quarter of the time of writing a large one. Written
 * in place from the last digit, two digits per division (a .paths file
 * is mostly numbers: perf/RESULTS.md, session 23). */
void cb_out_u64(cb_outfile *f, ULong v)
{
   static const HChar pairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
   Int n = decimal_length(v);
   HChar *at;
   if (f->used + n > (Int)sizeof f->buf) cb_out_flush(f);
   f->used += n;
   at = f->buf + f->used;
   while (v >= 100) {
      UInt two = (UInt)(v % 100);
      v /= 100;
      at -= 2;
      at[0] = pairs[2 * two];
      at[1] = pairs[2 * two + 1];
   }
   if (v >= 10) {
      at[-2] = pairs[2 * v];
      at[-1] = pairs[2 * v + 1];
   } else {
      at[-1] = (HChar)('0' + v);
   }
}

void cb_out_i64(cb_outfile *f, Long v)
{
   if (v < 0) {
      cb_out_str(f, "-");
      cb_out_u64(f, -(ULong)v);
   } else {
      cb_out_u64(f, (ULong)v);
   }
}

static void cb_out_vprintf(cb_outfile *f, const HChar *fmt, va_list ap)
{
   HChar line[512];
   VG_(vsnprintf)(line, sizeof line, fmt, ap);
   cb_out_str(f, line);
}

void cb_out_printf(cb_outfile *f, const HChar *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   cb_out_vprintf(f, fmt, ap);
   va_end(ap);
}

void cb_out_finish(cb_outfile *f)
{
   cb_out_flush(f);
   VG_(close)(f->fd);
   f->fd = -1;
}

/* An argument on the one-line cmd: header. As the reference does, a
 * newline is written as \n and a backslash as \\, so that an argument
 * such as a script passed with -c or -e cannot end the line early. */
static void out_cmd_arg(cb_outfile *f, const HChar *arg)
{
   cb_out_str(f, " ");
   for (; *arg; arg++) {
      if (*arg == '\n') cb_out_str(f, "\\n");
      else if (*arg == '\\') cb_out_str(f, "\\\\");
      else { HChar c[2] = { *arg, 0 }; cb_out_str(f, c); }
   }
}

void cb_write_cmd_line(cb_outfile *f)
{
   Word i;
   cb_out_str(f, "cmd: ");
   if (VG_(args_the_exename)) out_cmd_arg(f, VG_(args_the_exename));
   for (i = 0; i < VG_(sizeXA)(VG_(args_for_client)); i++)
      out_cmd_arg(f, *(HChar **)VG_(indexXA)(VG_(args_for_client), i));
   cb_out_str(f, "\n");
}
