// src/exercises/student/not_implemented.hpp — what a stub throws before the student writes it.
//
// Why its own type: `attn exercise` tells "you have not written this yet" (the untouched stub,
// which shows the first hint and uses none up) from "your code threw" (a bug to look at).
//
//   throw attn::exercises::NotImplementedYet("lesson 1: exercise::dot_attention is not implemented yet");
#pragma once

#include <stdexcept>
#include <string>

namespace attn::exercises {

class NotImplementedYet : public std::logic_error {
public:
    explicit NotImplementedYet(const std::string& what) : std::logic_error(what) {}
};

}  // namespace attn::exercises
