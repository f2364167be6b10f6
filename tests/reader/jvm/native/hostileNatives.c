/* HostileJvm's natives (reader.hostile_input cfi_mappings): maps one file COUNT times and spins in
 * the first mapping on a stack of its own whose return addresses lead through all the others, so
 * that every sample the reader unwinds visits COUNT mappings of one file. The file (made by
 * hostileInputTest.py) spins at file offset 0x1000 (jmp .) and its .eh_frame describes every byte
 * from there with one row each (CFA = rsp + 8, return address at CFA - 8): a reader that builds
 * one table per mapping builds COUNT tables of ~2 Mi rows. */
#include <fcntl.h>
#include <jni.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SPIN_OFFSET 0x1000
#define RETURN_OFFSET 0x1101 /* a return address: the reader looks up the byte before */
#define MAX_MAPPINGS 127

JNIEXPORT void JNICALL Java_HostileJvm_spinInMappings(JNIEnv* env, jclass cls, jstring file,
                                                      jint count) {
  (void)cls;
  const char* path = (*env)->GetStringUTFChars(env, file, NULL);
  const int fd = open(path, O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || count < 2 || count > MAX_MAPPINGS) return;
  uintptr_t bases[MAX_MAPPINGS];
  for (int i = 0; i < count; i++) {
    void* base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
    if (base == MAP_FAILED) return;
    bases[i] = (uintptr_t)base;
  }
  /* 1 MiB of stack, the frames in its middle (room below for a signal's frame). */
  const size_t size = 1 << 20;
  uint8_t* region = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED) return;
  uint64_t* sp = (uint64_t*)(region + size / 2);
  for (int i = 1; i < count; i++) sp[i - 1] = bases[i] + RETURN_OFFSET;
  sp[count - 1] = 0;
  __asm__ volatile("mov %0, %%rsp\n\tjmp *%1" : : "r"(sp), "r"(bases[0] + SPIN_OFFSET) : "memory");
  __builtin_unreachable();
}
