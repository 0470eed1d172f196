/* Creates the file named by its first argument and exits: a test that
   expects the tool to stop before the client runs checks that the file
   does not exist afterwards. */
#include <stdio.h>

int main(int argc, char **argv)
{
    FILE *f = argc > 1 ? fopen(argv[1], "w") : NULL;
    if (f) {
        fputs("client ran\n", f);
        fclose(f);
    }
    return 0;
}
