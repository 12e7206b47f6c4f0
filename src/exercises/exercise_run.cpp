#include "exercise_run.hpp"

#include <algorithm>

#include "tutor/language.hpp"

namespace attn::exercises {

namespace {

using Clock = std::chrono::steady_clock;

wire::Encoder request(std::uint32_t index, const Case& c) {
    wire::Encoder message;
    message.u32(index);
    message.string(c.call);
    message.u32(static_cast<std::uint32_t>(c.inputs.size()));
    for (const auto& [name, tensor] : c.inputs) message.tensor(name, tensor.shape(), tensor);
    return message;
}

NamedTensors decode_result(wire::Decoder& in) {
    NamedTensors got;
    const std::uint32_t count = in.u32();
    for (std::uint32_t i = 0; i < count; ++i) {
        wire::Tensor tensor = in.tensor();
        std::vector<std::size_t> shape(tensor.shape.begin(), tensor.shape.end());
        DynamicTensor value = DynamicTensor::from_shape(shape);
        std::copy(tensor.values.begin(), tensor.values.end(), value.begin());
        got[tensor.name] = std::move(value);
    }
    return got;
}

// What xtensor's bounds check (XTENSOR_ENABLE_ASSERT) says, without the header's path and line.
std::string readable_exception(const std::string& type, const std::string& what, std::size_t memory_mib) {
    std::string message = what;
    const std::string marker = "check failed\n\t";
    const auto at = message.find(marker);
    if (at != std::string::npos) {
        return tutor::trf("your code read or wrote outside a tensor: {1} (xtensor's bounds check; indices run from 0 to size − 1)",
                          {message.substr(at + marker.size())});
    }
    std::string text = tutor::trf("your code threw {1}", {type}) + (message.empty() ? "" : ": " + message);
    if (type == "std::bad_alloc") {
        text += " " + tutor::trf("(it ran out of memory; the limit is {1} MiB: is a size wrong?)", {std::to_string(memory_mib)});
    }
    return text;
}

CaseOutcome failure_outcome(wire::Decoder& in, bool& internal_error, std::size_t memory_mib) {
    CaseOutcome outcome;
    const auto kind = static_cast<wire::FailureKind>(in.u32());
    const std::string type = in.string(), what = in.string();
    switch (kind) {
        case wire::FailureKind::not_implemented:
            outcome.status = CaseOutcome::Status::not_implemented;
            outcome.message = what;
            break;
        case wire::FailureKind::std_exception:
            outcome.status = CaseOutcome::Status::threw;
            outcome.message = readable_exception(type, what, memory_mib);
            break;
        case wire::FailureKind::other_exception:
            outcome.status = CaseOutcome::Status::threw;
            outcome.message = tutor::trf("your code threw a value of type {1}, which is not a std::exception (`throw 42;`?): "
                                         "throw std::runtime_error(\"…\") to say what went wrong",
                                         {type});
            break;
        default:
            internal_error = true;
            outcome.status = CaseOutcome::Status::threw;
            outcome.message = tutor::trf("the checker and your program disagree about this case: {1} (a bug of attn, please report it)", {what});
    }
    return outcome;
}

// The sentence about a program that ended or crashed inside `function` in case `name`.
std::string ended_sentence(const Sandbox& program, const std::string& name, const std::string& function, std::size_t memory_mib) {
    const std::string where = name.empty()       ? tutor::tr("before its first case")
                              : function.empty() ? tutor::trf("in case \"{1}\"", {name})
                                                 : tutor::trf("in case \"{1}\", inside {2}", {name, function});
    const std::string held = program.channel_held_after_end()
                                 ? " " + tutor::tr("A process your program started still held its report channel (file descriptor 4) "
                                                   "open after it ended; that process was stopped.")
                                 : "";
    const std::string output = program.output();
    // AddressSanitizer's words for its limits (hard_rss_limit_mb, malloc_limit_mb) and for a size
    // beyond any limit; without it, RLIMIT_AS shows as std::bad_alloc (failure_outcome).
    for (const char* out_of_memory : {"out-of-memory", "allocation-size-too-big", "RSS limit exceeded", "rss limit exhausted",
                                      "allocator is out of memory", "requested allocation size"}) {
        if (output.find(out_of_memory) == std::string::npos) continue;
        return tutor::trf("your code ran out of memory {1} (the limit is {2} MiB): is a size wrong, or does a loop keep allocating?",
                          {where, std::to_string(memory_mib)}) + held;
    }
    const auto undefined = output.find(": runtime error: ");
    if (undefined != std::string::npos) {
        const std::size_t start = undefined + 17, end = output.find('\n', start);
        return tutor::trf("your code crashed (undefined behaviour: {1}) {2}. The report below names the line.",
                          {output.substr(start, end == std::string::npos ? std::string::npos : end - start), where});
    }
    const auto asan = output.find("ERROR: AddressSanitizer: ");
    if (asan != std::string::npos) {
        const std::size_t start = asan + 25, end = output.find_first_of(" \n", start);
        std::string kind = output.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (kind == "SEGV") kind = tutor::tr("segmentation fault: a read or write at an address that is not yours");
        if (kind == "ABRT") kind = "abort";
        if (kind == "heap-buffer-overflow" || kind == "stack-buffer-overflow")
            kind += ": " + tutor::tr("a read or write past the end of a tensor or array");
        return tutor::trf("your code crashed ({1}) {2}. AddressSanitizer's report below names the line.", {kind, where});
    }
    if (program.signal() != 0) return tutor::trf("your code crashed ({1}) {2}.", {program.how_it_ended(), where}) + held;
    return tutor::trf("your program ended ({1}) {2}, before reporting its results: does your code call exit() or abort()? "
                      "A case counts only when its results arrive.",
                      {program.how_it_ended(), where}) + held;
}

// "5 s": the time limit as the messages write it.
std::string seconds_text(double seconds) {
    char text[32];
    std::snprintf(text, sizeof text, "%g s", seconds);
    return text;
}

// Why the run stopped, for a student: the time limit, an unreadable report, or how the program ended.
// `name` is the case ("" before the first), `function` the function it was in ("" if unknown).
std::string stopped_sentence(const Sandbox& sandbox, const Sandbox::Event& event, const std::string& name, const std::string& function,
                             const Limits& limits) {
    if (event.kind == Sandbox::Event::Kind::timed_out) {
        const std::string where = name.empty() ? tutor::tr("(and 5 s more) of starting: does a global's constructor loop?")
                                  : function.empty() ? tutor::trf("in case \"{1}\"", {name})
                                                     : tutor::trf("in case \"{1}\", inside {2}", {name, function});
        return tutor::trf("your code did not finish within {1} {2} (an endless loop?), and was stopped. A loop "
                          "counting down with an unsigned counter (std::size_t s; s >= 0; --s) never ends: s >= 0 "
                          "is always true. `--time-limit S` allows more time.",
                          {seconds_text(limits.seconds_per_case), where});
    }
    if (event.kind == Sandbox::Event::Kind::protocol_error) {
        return tutor::trf("your program wrote something the checker cannot read on its report channel ({1}) {2}: "
                          "does your code write to file descriptor 4, or close it?",
                          {event.detail, name.empty() ? tutor::tr("before its first case") : tutor::trf("in case \"{1}\"", {name})});
    }
    return ended_sentence(sandbox, name, function, limits.memory_mib);
}

// Case i sent and its reports read until its result or failure (judged into report.outcomes[i]),
// or until the run stops (report.stopped; this case failed, the later ones never run).
void run_case(Sandbox& sandbox, const Case& c, std::size_t i, std::chrono::milliseconds limit, const Limits& limits,
              RunReport& report) {
    sandbox.send(wire::FrameType::request, request(static_cast<std::uint32_t>(i), c));
    const auto deadline = Clock::now() + limit;
    std::string function;
    while (true) {
        Sandbox::Event event = sandbox.next(deadline);
        if (event.kind == Sandbox::Event::Kind::frame) {
            try {
                wire::Decoder in(event.frame.payload);
                if (in.u32() != i) throw wire::ProtocolError("a report for another case");
                if (event.frame.type == wire::FrameType::calling) {
                    function = in.string();
                    continue;
                }
                if (event.frame.type == wire::FrameType::result) {
                    report.outcomes[i] = judge_case(c, decode_result(in));
                } else if (event.frame.type == wire::FrameType::failure) {
                    report.outcomes[i] = failure_outcome(in, report.internal_error, limits.memory_mib);
                } else {
                    throw wire::ProtocolError("an unexpected frame");
                }
                return;
            } catch (const wire::ProtocolError& e) {
                event.kind = Sandbox::Event::Kind::protocol_error;
                event.detail = e.what();
            }
        }
        report.stopped = stopped_sentence(sandbox, event, c.name, function, limits);
        break;
    }
    report.outcomes[i].status = CaseOutcome::Status::threw;
    report.outcomes[i].message = report.stopped;
}

}  // namespace

bool RunReport::passed() const {
    return stopped.empty() && !internal_error && !outcomes.empty() &&
           std::all_of(outcomes.begin(), outcomes.end(), [](const auto& o) { return o.status == CaseOutcome::Status::passed; });
}

std::size_t RunReport::count(CaseOutcome::Status status) const {
    return static_cast<std::size_t>(std::count_if(outcomes.begin(), outcomes.end(), [&](const auto& o) { return o.status == status; }));
}

RunReport run_cases(const Exercise& exercise, const std::string& program, const Limits& limits, const CaseCallback& on_case) {
    RunReport report;
    report.outcomes.resize(exercise.cases.size());
    Sandbox sandbox(program, limits);
    const auto limit = std::chrono::milliseconds(static_cast<long long>(limits.seconds_per_case * 1000));

    // Starting (loading, the sanitizers' set-up, a busy machine) gets five seconds more than a case.
    Sandbox::Event event = sandbox.next(Clock::now() + limit + std::chrono::seconds(5));
    if (event.kind != Sandbox::Event::Kind::frame || event.frame.type != wire::FrameType::hello) {
        if (event.kind == Sandbox::Event::Kind::frame) {
            event.kind = Sandbox::Event::Kind::protocol_error;
            event.detail = "no greeting";
        }
        report.stopped = stopped_sentence(sandbox, event, "", "", limits);
        report.output = sandbox.output();
        return report;
    }
    for (std::size_t i = 0; i < exercise.cases.size() && report.stopped.empty() && !report.internal_error; ++i) {
        run_case(sandbox, exercise.cases[i], i, limit, limits, report);
        if (report.stopped.empty() && on_case) on_case(i, report.outcomes[i]);
    }
    // Done: a program that served every case gets two seconds to exit; one that broke off, none.
    if (report.stopped.empty()) sandbox.send(wire::FrameType::end, wire::Encoder{});
    sandbox.finish(Clock::now() + (report.stopped.empty() ? std::chrono::seconds(2) : std::chrono::seconds(0)));
    report.output = sandbox.output();
    return report;
}

}  // namespace attn::exercises
