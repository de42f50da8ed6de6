// The bench's floor for unpacking a stored container: a minimal C program that writes chunk after chunk of a file
// into files of their own, as unpack does into a new folder (each file under its final name in a temporary folder
// beside the output, renamed into place at the end), on two threads. It shows what creating that many files costs
// on this machine's file system, apart from anything Node or the toolkit does.
// Usage: floor-copy <src> <outdir> <chunk bytes> <chunk count> <threads>
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static int src;
static char staged[4096];
static long chunk, count, threads;

static void *work(void *arg) {
  char dst[4096];
  char *buf = malloc(chunk);
  for (long i = (long)arg; i < count; i += threads) {
    snprintf(dst, sizeof dst, "%s/%ld.bin", staged, i);
    if (pread(src, buf, chunk, i * chunk) != chunk) exit(3);
    int fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, buf, chunk) != chunk) exit(4);
    close(fd);
  }
  free(buf);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 6) return 2;
  src = open(argv[1], O_RDONLY);
  const char *outdir = argv[2];
  snprintf(staged, sizeof staged, "%s.tmp", outdir);
  chunk = atol(argv[3]);
  count = atol(argv[4]);
  threads = atol(argv[5]);
  if (src < 0 || threads < 1 || threads > 64) return 2;
  mkdir(staged, 0755);
  pthread_t t[64];
  for (long k = 0; k < threads; k++) pthread_create(&t[k], NULL, work, (void *)k);
  for (long k = 0; k < threads; k++) pthread_join(t[k], NULL);
  return rename(staged, outdir) == 0 ? 0 : 5;
}
