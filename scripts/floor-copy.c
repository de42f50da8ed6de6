// The bench's floor for unpacking a stored container: a minimal C program that writes chunk after chunk of a file
// into files of their own, as unpack does (temporary name, then rename), on two threads. It shows what creating
// that many files costs on this machine's file system, apart from anything Node or the toolkit does.
// Usage: floor-copy <src> <outdir> <chunk bytes> <chunk count> <threads>
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static int src;
static const char *outdir;
static long chunk, count, threads;

static void *work(void *arg) {
  char tmp[4096], dst[4096];
  char *buf = malloc(chunk);
  for (long i = (long)arg; i < count; i += threads) {
    snprintf(tmp, sizeof tmp, "%s/.tmp%ld", outdir, i);
    snprintf(dst, sizeof dst, "%s/%ld.bin", outdir, i);
    if (pread(src, buf, chunk, i * chunk) != chunk) exit(3);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, buf, chunk) != chunk) exit(4);
    close(fd);
    if (rename(tmp, dst) != 0) exit(5);
  }
  free(buf);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 6) return 2;
  src = open(argv[1], O_RDONLY);
  outdir = argv[2];
  chunk = atol(argv[3]);
  count = atol(argv[4]);
  threads = atol(argv[5]);
  if (src < 0 || threads < 1 || threads > 64) return 2;
  mkdir(outdir, 0755);
  pthread_t t[64];
  for (long k = 0; k < threads; k++) pthread_create(&t[k], NULL, work, (void *)k);
  for (long k = 0; k < threads; k++) pthread_join(t[k], NULL);
  return 0;
}
