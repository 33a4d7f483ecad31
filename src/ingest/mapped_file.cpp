#include "ingest/mapped_file.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <mutex>

namespace faultline::ingest {

namespace {

// The mappings the SIGBUS handler may repair: a fixed table of atomics, which the handler can
// read without locks or allocation. A file mapped while the table is full is read instead.
struct Guarded {
  std::atomic<uintptr_t> begin{0};
  std::atomic<uintptr_t> end{0};
  std::atomic<bool> shrank{false};
};
constexpr size_t kSlots = 256;
Guarded g_slots[kSlots];
std::atomic<bool> g_claimed[kSlots];
uintptr_t g_page_size = 4096;
struct sigaction g_previous_action {};

void on_sigbus(int, siginfo_t* info, void*) {
  auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  for (auto& slot : g_slots) {
    uintptr_t begin = slot.begin.load(std::memory_order_acquire);
    uintptr_t end = slot.end.load(std::memory_order_acquire);
    if (begin == 0 || address < begin || address >= end) continue;
    uintptr_t page = address & ~(g_page_size - 1);
    void* zeros = mmap(reinterpret_cast<void*>(page), end - page, PROT_READ, MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1, 0);
    if (zeros != MAP_FAILED) {
      slot.shrank.store(true, std::memory_order_release);
      return;  // the access is retried and reads zeros
    }
  }
  // Not a mapped log: the default action, when the access is retried.
  sigaction(SIGBUS, &g_previous_action, nullptr);
}

void install_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    g_page_size = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    struct sigaction action {};
    action.sa_sigaction = on_sigbus;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    sigaction(SIGBUS, &action, &g_previous_action);
  });
}

}  // namespace

std::unique_ptr<MappedFile> MappedFile::map(int fd) {
  struct stat info {};
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) || static_cast<uint64_t>(info.st_size) < kMapFrom) return nullptr;
  if (lseek(fd, 0, SEEK_CUR) != 0) return nullptr;  // stdin, partly read already: read on from there
  auto size = static_cast<uint64_t>(info.st_size);
  install_handler();
  size_t slot = 0;
  for (; slot < kSlots; ++slot) {
    bool expected = false;
    if (g_claimed[slot].compare_exchange_strong(expected, true)) break;
  }
  if (slot == kSlots) return nullptr;
  void* address = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (address == MAP_FAILED) {
    g_claimed[slot].store(false);
    return nullptr;
  }
  madvise(address, size, MADV_SEQUENTIAL);
  auto begin = reinterpret_cast<uintptr_t>(address);
  g_slots[slot].shrank.store(false);
  g_slots[slot].end.store(begin + ((size + g_page_size - 1) & ~(g_page_size - 1)), std::memory_order_release);
  g_slots[slot].begin.store(begin, std::memory_order_release);
  return std::unique_ptr<MappedFile>(new MappedFile(address, size, slot));
}

MappedFile::~MappedFile() {
  g_slots[slot_].begin.store(0, std::memory_order_release);
  g_slots[slot_].end.store(0, std::memory_order_release);
  munmap(address_, size_);
  g_claimed[slot_].store(false);
}

void MappedFile::release_before(uint64_t offset) {
  uint64_t page_start = offset & ~static_cast<uint64_t>(g_page_size - 1);
  if (page_start <= released_) return;
  madvise(static_cast<char*>(address_) + released_, page_start - released_, MADV_DONTNEED);
  released_ = page_start;
}

bool MappedFile::shrank() const { return g_slots[slot_].shrank.load(std::memory_order_acquire); }

}  // namespace faultline::ingest
