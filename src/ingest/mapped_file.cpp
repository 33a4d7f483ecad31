#include "ingest/mapped_file.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <mutex>
#include <utility>

namespace faultline::ingest {

namespace {

// The mappings the SIGBUS handler may repair: a fixed table of atomics, which the handler can
// read without locks or allocation. A file mapped while the table is full is read instead. Each
// slot is a sequence lock: its generation is odd while the slot changes, and the handler trusts
// a begin and end only if the generation was even and the same before and after reading them.
struct Guarded {
  std::atomic<uint64_t> generation{0};
  std::atomic<uintptr_t> begin{0};
  std::atomic<uintptr_t> end{0};
  std::atomic<bool> shrank{false};

  void set(uintptr_t new_begin, uintptr_t new_end) {
    uint64_t before = generation.load(std::memory_order_relaxed);
    generation.store(before + 1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    begin.store(new_begin, std::memory_order_relaxed);
    end.store(new_end, std::memory_order_relaxed);
    shrank.store(false, std::memory_order_relaxed);
    generation.store(before + 2, std::memory_order_release);
  }
  // The slot's range when it held still while read; {0, 0} otherwise.
  std::pair<uintptr_t, uintptr_t> range() const {
    uint64_t before = generation.load(std::memory_order_acquire);
    uintptr_t first = begin.load(std::memory_order_relaxed);
    uintptr_t last = end.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (before % 2 != 0 || generation.load(std::memory_order_relaxed) != before) return {0, 0};
    return {first, last};
  }
};
constexpr size_t kSlots = 256;
Guarded guarded_slots[kSlots];
std::atomic<bool> claimed_slots[kSlots];
uintptr_t page_size = 4096;
struct sigaction previous_sigbus_action {};

void on_sigbus(int, siginfo_t* info, void*) {
  auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  for (auto& slot : guarded_slots) {
    auto [begin, end] = slot.range();
    if (begin == 0 || address < begin || address >= end) continue;
    uintptr_t page = address & ~(page_size - 1);
    void* zeros = mmap(reinterpret_cast<void*>(page), end - page, PROT_READ,
                       MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1, 0);
    if (zeros != MAP_FAILED) {
      slot.shrank.store(true, std::memory_order_release);
      return;  // the access is retried and reads zeros
    }
  }
  // Not a mapped log: the default action, when the access is retried.
  sigaction(SIGBUS, &previous_sigbus_action, nullptr);
}

void install_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    page_size = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    struct sigaction action {};
    action.sa_sigaction = on_sigbus;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    sigaction(SIGBUS, &action, &previous_sigbus_action);
  });
}

}  // namespace

std::unique_ptr<MappedFile> MappedFile::map(int fd) {
  struct stat info {};
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) || static_cast<uint64_t>(info.st_size) < kMapFrom)
    return nullptr;
  if (lseek(fd, 0, SEEK_CUR) != 0) return nullptr;  // stdin, partly read already: read on from there
  auto size = static_cast<uint64_t>(info.st_size);
  install_handler();
  size_t slot = 0;
  for (; slot < kSlots; ++slot) {
    bool expected = false;
    if (claimed_slots[slot].compare_exchange_strong(expected, true)) break;
  }
  if (slot == kSlots) return nullptr;
  void* address = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (address == MAP_FAILED) {
    claimed_slots[slot].store(false);
    return nullptr;
  }
  madvise(address, size, MADV_SEQUENTIAL);
  auto begin = reinterpret_cast<uintptr_t>(address);
  guarded_slots[slot].set(begin, begin + ((size + page_size - 1) & ~(page_size - 1)));
  return std::unique_ptr<MappedFile>(new MappedFile(address, size, slot));
}

MappedFile::~MappedFile() {
  guarded_slots[slot_].set(0, 0);
  munmap(address_, size_);
  claimed_slots[slot_].store(false);
}

void MappedFile::release_before(uint64_t offset) {
  uint64_t page_start = offset & ~static_cast<uint64_t>(page_size - 1);
  if (page_start <= released_) return;
  madvise(static_cast<char*>(address_) + released_, page_start - released_, MADV_DONTNEED);
  released_ = page_start;
}

bool MappedFile::shrank() const {
  return guarded_slots[slot_].shrank.load(std::memory_order_acquire);
}

uint64_t MappedFile::size_now(int fd) {
  struct stat info {};
  return fstat(fd, &info) == 0 ? static_cast<uint64_t>(info.st_size) : 0;
}

}  // namespace faultline::ingest
