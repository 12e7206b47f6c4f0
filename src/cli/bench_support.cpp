// What the `attn bench` modules share (bench_support.hpp).
#include "cli/bench_support.hpp"

#include <sys/resource.h>
#include <time.h>

#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "attn/error.hpp"
#include "tutor/language.hpp"

namespace attn::cli {

using tutor::tr;
using tutor::trf;
using tutor::trn;

std::size_t size_option(const char* flag, const std::optional<long long>& value, std::size_t fallback) {
    if (!value) return fallback;
    if (*value < 1) throw InputError(trf("{1} must be at least {2} (got {3})", {flag, "1", std::to_string(*value)}));
    return static_cast<std::size_t>(*value);
}

void check_heads_divide(std::size_t heads, std::size_t d_model) {
    if (d_model % heads != 0) {
        throw InputError(trf("--heads {1} does not divide --d-model {2} (each head has d_model / heads columns)",
                             {std::to_string(heads), std::to_string(d_model)}));
    }
}

Repetition checked_repetition(const std::optional<long long>& threads, const std::optional<long long>& repeat,
                              const std::optional<long long>& warmup, std::size_t default_threads,
                              long long default_repeat, long long default_warmup) {
    Repetition r;
    r.threads = size_option("--threads", threads, default_threads);
    if (r.threads > 1024) throw InputError(trf("{1} must be at most {2} (got {3})", {"--threads", "1024", std::to_string(r.threads)}));
    const long long repeats = repeat.value_or(default_repeat), warmups = warmup.value_or(default_warmup);
    if (repeats < 1) throw InputError(trf("{1} must be at least {2} (got {3})", {"--repeat", "1", std::to_string(repeats)}));
    if (warmups < 0) throw InputError(trf("{1} must be at least {2} (got {3})", {"--warmup", "0", std::to_string(warmups)}));
    r.repeat = static_cast<std::size_t>(repeats);
    r.warmup = static_cast<std::size_t>(warmups);
    return r;
}

fast::AttentionParameters random_attention(std::mt19937& generator, std::size_t D, std::size_t kv_width) {
    const float bound = 1.0f / std::sqrt(float(D));
    fast::AttentionParameters p;
    p.w_q = random_tensor<2>(generator, {D, D}, -bound, bound);
    p.w_k = random_tensor<2>(generator, {kv_width, D}, -bound, bound);
    p.w_v = random_tensor<2>(generator, {kv_width, D}, -bound, bound);
    p.b_q = random_tensor<1>(generator, {D}, -bound, bound);
    p.b_k = random_tensor<1>(generator, {kv_width}, -bound, bound);
    p.b_v = random_tensor<1>(generator, {kv_width}, -bound, bound);
    p.w_o = random_tensor<2>(generator, {D, D}, -bound, bound);
    p.b_o = random_tensor<1>(generator, {D}, -bound, bound);
    return p;
}

double peak_rss_mb() {
    struct rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_maxrss) / 1024.0;  // Linux reports kilobytes
}

double process_cpu_ms() {
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return double(now.tv_sec) * 1e3 + double(now.tv_nsec) / 1e6;
}

std::string json_escaped(const std::string& text) {
    std::string out;
    for (const char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out;
}

std::string fixed(double value, int decimals) {
    std::ostringstream text;
    text << std::fixed << std::setprecision(decimals) << value;
    return text.str();
}

void print_machine(const fast::MachineDescription& machine) {
    std::cout << "  " << trf("machine   {1} · {2} · kernels {3}",
                             {machine.cpu_model,
                              trn("{1} physical core", "{1} physical cores", static_cast<unsigned long>(machine.physical_cores),
                                  {std::to_string(machine.physical_cores)}) +
                                  ", " +
                                  trn("{1} CPU", "{1} CPUs", static_cast<unsigned long>(machine.logical_cpus),
                                      {std::to_string(machine.logical_cpus)}),
                              machine.kernels})
              << "\n"
              << "  " << trf("BLAS      {1}", {machine.blas}) << "\n";
}

std::string machine_json(const fast::MachineDescription& machine, double sgemm_gflops) {
    std::ostringstream text;
    text << "\"cpu_model\": \"" << json_escaped(machine.cpu_model) << "\", \"physical_cores\": " << machine.physical_cores
         << ", \"logical_cpus\": " << machine.logical_cpus << ", \"kernels\": \"" << machine.kernels << "\", \"blas\": \""
         << json_escaped(machine.blas) << "\", \"sgemm_gflops\": " << fixed(sgemm_gflops, 2);
    return text.str();
}

}  // namespace attn::cli
