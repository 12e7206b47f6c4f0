#include "diagnosis.hpp"

#include <algorithm>
#include <cmath>

#include "attn/shape.hpp"
#include "tutor/language.hpp"

namespace attn::exercises {

namespace {

// Would `values` (one per expected step) pass the case's check?
bool passes(const Case& c, const std::vector<DynamicTensor>& values) {
    for (std::size_t k = 0; k < c.expected.size(); ++k) {
        if (!tutor::compare(c.expected[k].value, values.at(k), c.tolerance, c.expected[k].resolution).passed) return false;
    }
    return true;
}

// Are two sets of step values the same, within the case's tolerance (written digits play no part)?
bool same(const Case& c, const std::vector<DynamicTensor>& a, const std::vector<DynamicTensor>& b) {
    for (std::size_t k = 0; k < c.expected.size(); ++k) {
        if (!tutor::compare(a.at(k), b.at(k), c.tolerance).passed) return false;
    }
    return true;
}

std::vector<DynamicTensor> student_values(const Case& c, const CaseOutcome& outcome) {
    std::vector<DynamicTensor> values;
    for (const auto& step : c.expected) {
        const auto found = outcome.got.find(step.name);
        values.push_back(found == outcome.got.end() ? DynamicTensor() : found->second);
    }
    return values;
}

// Does `id` explain every case, with at least one case where nothing else could? `tables[i]` is
// case i's mistake table.
bool explains_every_case(const Exercise& exercise, const std::vector<CaseOutcome>& outcomes,
                         const std::vector<MistakeTable>& tables, const std::string& id) {
    bool evidence = false;
    for (std::size_t i = 0; i < exercise.cases.size(); ++i) {
        const Case& c = exercise.cases[i];
        const bool student_passed = outcomes[i].status == CaseOutcome::Status::passed;
        const auto found = tables[i].find(id);
        if (found == tables[i].end() || passes(c, found->second)) {
            // The mistake would pass this case: so must the student.
            if (!student_passed) return false;
            continue;
        }
        if (!same(c, found->second, student_values(c, outcomes[i]))) return false;
        bool unique = true;
        for (const auto& [other, values] : tables[i]) {
            if (other != id && same(c, found->second, values)) unique = false;
        }
        evidence = evidence || unique;
    }
    return evidence;
}

std::string index_text(const std::vector<std::size_t>& index) {
    std::string text = "[";
    for (std::size_t i = 0; i < index.size(); ++i) text += (i ? ", " : "") + std::to_string(index[i]);
    return text + "]";
}

std::string number_text(double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.9g", value);
    return buffer;
}

}  // namespace

CaseOutcome judge_case(const Case& c, NamedTensors got) {
    CaseOutcome outcome;
    outcome.got = std::move(got);
    outcome.status = CaseOutcome::Status::passed;
    for (const auto& step : c.expected) {
        const auto found = outcome.got.find(step.name);
        const DynamicTensor missing = DynamicTensor::from_shape({0});
        tutor::Comparison comparison =
            tutor::compare(step.value, found == outcome.got.end() ? missing : found->second, c.tolerance, step.resolution);
        if (!comparison.passed) outcome.status = CaseOutcome::Status::failed;
        outcome.comparisons.push_back(std::move(comparison));
    }
    return outcome;
}

bool looks_like_float_precision(const Exercise& exercise, const std::vector<CaseOutcome>& outcomes) {
    bool any = false;
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
        if (outcomes[i].status != CaseOutcome::Status::failed) continue;
        const Case& c = exercise.cases[i];
        for (std::size_t k = 0; k < c.expected.size(); ++k) {
            if (outcomes[i].comparisons[k].passed) continue;
            if (!outcomes[i].comparisons[k].shapes_match) return false;
            const DynamicTensor& expected = c.expected[k].value;
            const DynamicTensor& got = outcomes[i].got.at(c.expected[k].name);
            double scale = 0.0;
            for (double e : expected) {
                if (std::isfinite(e)) scale = std::max(scale, std::fabs(e));
            }
            for (std::size_t n = 0; n < expected.size(); ++n) {
                const double e = expected.data()[n], g = got.data()[n];
                if (e == g) continue;  // also the same infinity
                if (!std::isfinite(e) || !(std::fabs(g - e) <= 1e-6 * scale)) return false;  // NaN and ∞ fail here
            }
            any = true;
        }
    }
    return any;
}

std::string step_key(const Exercise& exercise, const Case& c, const std::string& name) {
    for (const auto& other : exercise.cases) {
        if (other.call == c.call) continue;
        for (const auto& step : other.expected) {
            if (step.name == name) return c.call + "." + name;
        }
    }
    return name;
}

std::vector<std::string> step_order(const Exercise& exercise) {
    std::vector<std::string> order;
    for (const auto& c : exercise.cases) {
        auto after = order.begin();  // a step new to the list goes right after this case's step before it
        for (const auto& step : c.expected) {
            const std::string key = step_key(exercise, c, step.name);
            const auto found = std::find(order.begin(), order.end(), key);
            after = found != order.end() ? found + 1 : order.insert(after, key) + 1;
        }
    }
    return order;
}

Diagnosis diagnose(const Exercise& exercise, const std::vector<CaseOutcome>& outcomes) {
    Diagnosis diagnosis;
    // The earliest step, in the exercise's order, that differs in any case that failed with
    // numbers, and the first case where it differs: a later step is often only its symptom.
    const std::vector<std::string> order = step_order(exercise);
    const CaseOutcome* first_failed = nullptr;
    const Case* failed_case = nullptr;
    std::size_t failed_step = 0, earliest = order.size();
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
        if (outcomes[i].status != CaseOutcome::Status::failed) continue;
        for (std::size_t k = 0; k < outcomes[i].comparisons.size(); ++k) {
            if (outcomes[i].comparisons[k].passed) continue;
            const std::string key = step_key(exercise, exercise.cases[i], exercise.cases[i].expected[k].name);
            const auto position = static_cast<std::size_t>(std::find(order.begin(), order.end(), key) - order.begin());
            if (first_failed != nullptr && position >= earliest) continue;
            earliest = position;
            first_failed = &outcomes[i];
            failed_case = &exercise.cases[i];
            failed_step = k;
            diagnosis.failing_step = key;
        }
    }
    if (first_failed == nullptr) return diagnosis;

    bool every_case_has_numbers = outcomes.size() == exercise.cases.size();
    for (const auto& outcome : outcomes) every_case_has_numbers = every_case_has_numbers && outcome.has_numbers();
    if (every_case_has_numbers) {
        std::vector<MistakeTable> tables;
        for (const auto& c : exercise.cases) tables.push_back(c.mistakes ? c.mistakes() : MistakeTable{});
        std::vector<const KnownMistake*> named;
        for (const auto& mistake : exercise.mistakes) {
            if (explains_every_case(exercise, outcomes, tables, mistake.id)) named.push_back(&mistake);
        }
        if (named.size() == 1) {
            diagnosis.mistake = named[0]->id;
            diagnosis.message =
                tutor::tr("Your numbers match a classic mistake in every case that can tell it apart:") + " " + named[0]->explanation;
            return diagnosis;
        }
    }
    if (every_case_has_numbers && looks_like_float_precision(exercise, outcomes)) {
        diagnosis.float_precision = true;
        diagnosis.message = tutor::tr("Every difference is within a millionth of the values' size: this looks like float (single) "
                                      "precision. The exercise computes in double: use double for every sum, product and temporary.");
        return diagnosis;
    }
    const tutor::Comparison& comparison = first_failed->comparisons[failed_step];
    std::string where;
    if (!comparison.shapes_match) {
        where = tutor::trf("The first step that differs is '{1}' in case \"{2}\": its shape is {3}, expected {4}.",
                           {failed_case->expected[failed_step].name, failed_case->name, shape_string(comparison.got_shape),
                            shape_string(comparison.expected_shape)});
    } else {
        where = tutor::trf("The first step that differs is '{1}' in case \"{2}\", first at {3}: expected {4}, got {5}.",
                           {failed_case->expected[failed_step].name, failed_case->name, index_text(comparison.worst),
                            number_text(comparison.worst_expected), number_text(comparison.worst_got)});
    }
    diagnosis.message = (every_case_has_numbers ? tutor::tr("No classic mistake explains your numbers in every case.") + " " : "") + where;
    return diagnosis;
}

}  // namespace attn::exercises
