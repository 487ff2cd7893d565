// A CUPTI activity recorder for the device machines, which have no Nsight
// Systems: loaded into any CUDA program through CUDA_INJECTION64_PATH, it
// writes every kernel, copy, memset and runtime API call with its start and end
// (ns, one clock) to $TIMELINE_OUT (default timeline.csv), one line each:
//   kind,start,end,name      kind K kernel, C copy, S memset, R runtime call
// timeline.py summarizes it. Built by scripts/timeline/build.sh.
#include <cupti.h>

#include <cstdio>
#include <cstdlib>
#include <initializer_list>

namespace {

FILE* out = nullptr;

void check(CUptiResult result, const char* what) {
  if (result == CUPTI_SUCCESS) return;
  const char* message = nullptr;
  cuptiGetResultString(result, &message);
  std::fprintf(stderr, "cupti_timeline: %s failed: %s\n", what, message ? message : "?");
  std::exit(3);
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 16 << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        std::fprintf(out, "K,%llu,%llu,%s\n", (unsigned long long)k->start,
                     (unsigned long long)k->end, k->name);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        std::fprintf(out, "C,%llu,%llu,copy kind %d %llu bytes\n", (unsigned long long)m->start,
                     (unsigned long long)m->end, m->copyKind, (unsigned long long)m->bytes);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        std::fprintf(out, "S,%llu,%llu,memset %llu bytes\n", (unsigned long long)m->start,
                     (unsigned long long)m->end, (unsigned long long)m->bytes);
        break;
      }
      case CUPTI_ACTIVITY_KIND_RUNTIME: {
        const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
        const char* name = nullptr;
        cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, a->cbid, &name);
        std::fprintf(out, "R,%llu,%llu,%s\n", (unsigned long long)a->start,
                     (unsigned long long)a->end, name ? name : "?");
        break;
      }
      default:
        break;
    }
  }
  std::free(buffer);
}

void finish() {
  check(cuptiActivityFlushAll(1), "cuptiActivityFlushAll");
  std::fclose(out);
}

}  // namespace

extern "C" int InitializeInjection() {
  const char* path = std::getenv("TIMELINE_OUT");
  out = std::fopen(path ? path : "timeline.csv", "w");
  if (out == nullptr) {
    std::fprintf(stderr, "cupti_timeline: cannot write %s\n", path ? path : "timeline.csv");
    std::exit(3);
  }
  check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed),
        "cuptiActivityRegisterCallbacks");
  for (CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                  CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_RUNTIME})
    check(cuptiActivityEnable(kind), "cuptiActivityEnable");
  std::atexit(finish);
  return 1;
}
