// `mlp-infer` workload: see mlp_infer.hpp for what it measures.
#include "kernels/mlp_infer.hpp"

#include "kernels/host_clock.hpp"

#include <stdexcept>

namespace bench_mps::kernels {
namespace {

MlpParams inference_network(MlpParams p, const MlpInferParams& infer) {
  p.profile = MlpProfile::gpu_bound;  // the dataset lives on the device: a request is GPU work only
  p.batch = infer.batch;
  p.read_loss = false;
  if (p.dataset_size < p.batch) p.dataset_size = p.batch;
  return p;
}

class MlpInferWorkload final : public Workload {
 public:
  MlpInferWorkload(const MlpParams& mlp, const MlpInferParams& infer)
      : trainer_(inference_network(mlp, infer)), infer_(infer) {
    if (!(infer.rate_per_s > 0)) throw std::invalid_argument("mlp-infer: the request rate must be positive");
  }

  bool place_on_stream(void* stream) override {
    trainer_.place_on_stream(stream);
    return true;
  }

  void setup() override {
    trainer_.setup();
    trainer_.prepare_inference();
  }

  /// Arrivals count from here: request k of this phase arrives k / rate after it.
  void begin_timed() override {
    t0_ns_ = host_now_ns();
    next_ = 0;
    late_ = 0;
    trainer_.reset_step_timer();
  }

  void run_task() override {
    const std::int64_t arrival =
        t0_ns_ + static_cast<std::int64_t>(static_cast<double>(next_) * 1e9 / infer_.rate_per_s);
    ++next_;
    std::int64_t now = host_now_ns();
    if (t0_ns_ == 0) {  // warm-up, before any timed phase: no schedule
      trainer_.infer();
      span_ = {now, host_now_ns()};
      return;
    }
    if (now < arrival) {
      while (host_now_ns() < arrival) {  // the worker owns its core: spinning keeps the arrival exact
      }
    } else {
      ++late_;  // the service was still busy when this request arrived: it queued
    }
    trainer_.infer();
    span_ = {arrival, host_now_ns()};
  }

  std::pair<std::int64_t, std::int64_t> last_task_span() const override { return span_; }

  std::size_t device_bytes() const override { return trainer_.device_bytes(); }

  WorkloadFacts facts() const override {
    WorkloadFacts f{{"rate_per_s", infer_.rate_per_s},
                    {"batch", static_cast<double>(infer_.batch)},
                    {"queued_requests", static_cast<double>(late_)}};
    trainer_.add_step_facts(f);
    return f;
  }

 private:
  MlpTrainer trainer_;
  MlpInferParams infer_;
  std::int64_t t0_ns_ = 0;
  long next_ = 0, late_ = 0;
  std::pair<std::int64_t, std::int64_t> span_{0, 0};
};

}  // namespace

std::unique_ptr<Workload> make_mlp_infer_workload(const MlpParams& mlp, const MlpInferParams& infer) {
  return std::make_unique<MlpInferWorkload>(mlp, infer);
}

}  // namespace bench_mps::kernels
