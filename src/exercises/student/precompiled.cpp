// Compiled only so that the target attn_student_pch exists: it makes the precompiled header that
// every student's file is compiled with (cmake/exercises.cmake). Nothing of it is linked.
