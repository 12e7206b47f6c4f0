// The machine description of attn/fast/machine.hpp.
#include "attn/fast/machine.hpp"

#include <cblas.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "attn/printable.hpp"
#include "simd.hpp"
#include "thread_pool.hpp"

#ifdef ATTN_HAVE_OPENBLAS
// OpenBLAS's description of itself; Debian's libopenblas0 provides both.
extern "C" char* openblas_get_config(void);
extern "C" char* openblas_get_corename(void);
#endif

namespace attn::fast {

namespace {

// The CPUs of the affinity mask (a container or `taskset` may allow fewer than the machine has).
std::vector<int> allowed_cpus() {
    std::vector<int> cpus;
    cpu_set_t mask;
    CPU_ZERO(&mask);
    if (sched_getaffinity(0, sizeof mask, &mask) == 0) {
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
            if (CPU_ISSET(cpu, &mask)) cpus.push_back(cpu);
    }
    if (cpus.empty()) {
        const int count = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
        for (int cpu = 0; cpu < count; ++cpu) cpus.push_back(cpu);
    }
    return cpus;
}

// A small number read from a sysfs file, or -1.
int read_number(const std::string& path) {
    std::ifstream file(path);
    int value = -1;
    if (!(file >> value)) return -1;
    return value;
}

// The distinct (package, core) pairs among the CPUs; each CPU on its own when the topology is not
// there to read.
int count_cores(const std::vector<int>& cpus) {
    std::set<std::pair<int, int>> cores;
    for (const int cpu : cpus) {
        const std::string topology = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
        const int package = read_number(topology + "physical_package_id");
        const int core = read_number(topology + "core_id");
        if (package < 0 || core < 0) return static_cast<int>(cpus.size());
        cores.insert({package, core});
    }
    return std::max(1, static_cast<int>(cores.size()));
}

std::string cpu_model() {
    std::ifstream file("/proc/cpuinfo");
    std::string line;
    for (int read = 0; read < 4096 && std::getline(file, line); ++read) {
        if (line.rfind("model name", 0) != 0) continue;
        const auto colon = line.find(':');
        if (colon == std::string::npos) break;
        std::string model = line.substr(colon + 1);
        model.erase(0, model.find_first_not_of(" \t"));
        if (!model.empty()) return printable_excerpt(model, 120);
    }
    return "unknown";
}

std::string blas_description() {
#ifdef ATTN_HAVE_OPENBLAS
    std::string config = printable_excerpt(openblas_get_config(), 200);
    while (!config.empty() && config.back() == ' ') config.pop_back();
    return config + " · core " + printable_excerpt(openblas_get_corename(), 60);
#else
    return "a BLAS other than OpenBLAS";
#endif
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int physical_cores() { return count_cores(allowed_cpus()); }

MachineDescription describe_machine() {
    const std::vector<int> cpus = allowed_cpus();
    return {cpu_model(), static_cast<int>(cpus.size()), count_cores(cpus), detail::simd_name(detail::active_simd()),
            blas_description()};
}

double sgemm_gflops(int rounds) {
    constexpr int n = 1024;
    const auto pool = detail::shared_pool();
    const std::size_t threads = pool->size();
    std::vector<std::vector<float>> a(threads, std::vector<float>(std::size_t(n) * n, 0.5f));
    std::vector<std::vector<float>> b(threads, std::vector<float>(std::size_t(n) * n, 0.25f));
    std::vector<std::vector<float>> c(threads, std::vector<float>(std::size_t(n) * n, 0.0f));
    double best = 0.0;
    for (int round = 0; round <= std::max(1, rounds); ++round) {
        // Every thread waits for the others before it starts, so that the products run at once
        // (a thread that waits over a second — the pool busy with another caller's job — goes on).
        std::atomic<std::size_t> started{0};
        std::vector<double> seconds(threads, 0.0);
        pool->run(threads, [&](std::size_t index, std::size_t) {
            started.fetch_add(1);
            const auto waiting = std::chrono::steady_clock::now();
            while (started.load() < threads && seconds_since(waiting) < 1.0) std::this_thread::yield();
            const auto start = std::chrono::steady_clock::now();
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a[index].data(), n, b[index].data(),
                        n, 0.0f, c[index].data(), n);
            seconds[index] = seconds_since(start);
        });
        const double slowest = *std::max_element(seconds.begin(), seconds.end());
        if (round > 0 && slowest > 0.0) best = std::max(best, double(threads) * 2.0 * n * n * n / slowest / 1e9);
    }
    return best;
}

}  // namespace attn::fast
