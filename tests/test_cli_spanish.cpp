// The program's own words in Spanish, through the real `attn`: the help of every command, CLI11's
// usage errors, the error prefix and the "unknown …" messages, the commands that compute (compute,
// run, heatmap, view, bench), plural forms for 1 and for N, and the totals by the gender of what
// they count. The English these replaced is checked absent, so a message that slips back fails.
#include <catch2/catch.hpp>
#include <filesystem>
#include <regex>
#include <sstream>

#include "attn/npy.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace {

using attn::testing::CommandResult;
using attn::testing::run_attn;
using attn::testing::TempDir;

// No language chosen by the machine: only what a test sets.
std::map<std::string, std::string> environment_with(const std::map<std::string, std::string>& chosen) {
    std::map<std::string, std::string> environment = {{"ATTN_LANG", ""}, {"LC_ALL", ""}, {"LC_MESSAGES", ""}, {"LANG", ""}};
    for (const auto& [name, value] : chosen) environment[name] = value;
    return environment;
}

CommandResult run_spanish(const std::vector<std::string>& arguments, std::map<std::string, std::string> extra = {}) {
    extra["ATTN_LANG"] = "es";
    return run_attn(arguments, environment_with(extra));
}

// The English words a help screen of attn would use, whole words, outside option names
// (--file, --heads …), identifiers (batch_first, nn.Linear) and quoted examples; "weights" is
// also the name of a tensor (weights.npy), so it is not on the list.
std::vector<std::string> english_words_in(const std::string& help) {
    static const std::regex option_or_identifier(R"((--?[A-Za-z][A-Za-z-]*)|(\S*[_.]\S*)|("[^"]*"))");
    static const std::regex english(
        R"(\b(the|and|of|with|for|when|to|is|are|an|its|each|every|must|default|Usage|Options|Positionals|Subcommands|REQUIRED|TEXT|INT|UINT|FLOAT|FILE|Print|Display|Exit|Needs|Excludes|Run|Write|Show|Check|Which|Lesson|Folder|Seconds|Colours|Words|number|file|folder|heads|keys|queries|width|seed|sequence|words)\b)");
    const std::string text = std::regex_replace(help, option_or_identifier, " ");
    std::vector<std::string> found;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), english); it != std::sregex_iterator(); ++it) {
        found.push_back(it->str());
    }
    return found;
}

// lessons/05-multi-head-attention step 12's mha inputs in `in`: query, key and value (1, 3, 4), the
// (4, 4) projections w_q, w_k, w_v and their zero biases; no w_o (a block without an output
// projection).
void write_mha_inputs(const std::string& in) {
    std::filesystem::create_directories(in);
    const std::vector<double> tokens(12, 0.5), square(16, 0.25), bias(4, 0.0);
    for (const char* name : {"query", "key", "value"}) attn::write_npy(in + "/" + name + ".npy", {1, 3, 4}, tokens, attn::NpyDtype::float64);
    for (const char* name : {"w_q", "w_k", "w_v"}) attn::write_npy(in + "/" + name + ".npy", {4, 4}, square, attn::NpyDtype::float64);
    for (const char* name : {"b_q", "b_k", "b_v"}) attn::write_npy(in + "/" + name + ".npy", {4}, bias, attn::NpyDtype::float64);
}

std::size_t occurrences(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

}  // namespace

TEST_CASE("cli spanish - the help of attn and of every command has no English of its own", "[cli][language][slow]") {
    const std::vector<std::vector<std::string>> helps = {
        {"--help"},          {"lesson", "--help"}, {"check", "--help"},    {"list", "--help"},    {"exercise", "--help"},
        {"progress", "--help"}, {"compute", "--help"}, {"run", "--help"}, {"bench", "--help"}, {"heatmap", "--help"},
        {"view", "--help"}, {"train", "--help"}};
    for (const auto& arguments : helps) {
        for (const auto& environment : {std::map<std::string, std::string>{{"ATTN_LANG", "es"}},
                                        std::map<std::string, std::string>{{"LANG", "es_ES.UTF-8"}}}) {
            const CommandResult r = run_attn(arguments, environment_with(environment));
            INFO(arguments[0] << "\n" << r.out << r.err);
            CHECK(r.exit_code == 0);
            CHECK_THAT(r.out, Catch::Contains("Uso: ") && Catch::Contains("Opciones:") &&
                                  Catch::Contains("Muestra esta ayuda y termina"));
            // `attn compute --help` and `attn bench --help` end with their modules' table: Spanish too.
            CHECK((arguments[0] != "compute" || r.out.find("lección 5: atención multicabeza") != std::string::npos));
            const auto english = english_words_in(r.out);
            std::string listed;
            for (const auto& word : english) listed += word + " ";
            INFO("English words: " << listed);
            CHECK(english.empty());
        }
    }
    // The same check finds the English help English (it can fail).
    const CommandResult english = run_attn({"lesson", "--help"}, environment_with({}));
    CHECK(english_words_in(english.out).size() > 20);
    CHECK_THAT(english.out, Catch::Contains("Usage: ") && Catch::Contains("Options:"));
    // --lang chooses the help's language too, before or after the command.
    CHECK_THAT(run_attn({"lesson", "--help", "--lang", "es"}, environment_with({})).out, Catch::Contains("Recorre una lección"));
    CHECK_THAT(run_attn({"--lang", "es", "--help"}, environment_with({})).out, Catch::Contains("Comandos:"));
    CHECK_THAT(run_attn({"lesson", "--help", "--lang", "en"}, environment_with({{"ATTN_LANG", "es"}})).out,
               Catch::Contains("Walk through a lesson"));
}

TEST_CASE("cli spanish - CLI11's usage errors in Spanish", "[cli][language]") {
    struct Case {
        std::vector<std::string> arguments;
        std::string spanish;
    };
    const std::vector<Case> cases = {
        {{"lesson"}, "ERROR: falta lesson, que es obligatorio"},
        {{"lesson", "1", "--width", "20"}, "ERROR: --width: debe ser un número entero de 40 a 1000, no «20»"},
        {{"lesson", "1", "--step", "99999"}, "ERROR: --step: 99999 no está entre 0 y 9999"},
        {{"lesson", "1", "--show", "grid"}, "ERROR: --show: «grid» no es ninguno de: heatmap,tensor,both"},
        {{"lesson", "1", "--light", "--dark"}, "ERROR: --light no se puede dar junto con --dark"},
        {{"lesson", "1", "surplus"}, "ERROR: argumentos que sobran: surplus"},
        {{"heatmap", "--tokens", "tokens.txt"}, "ERROR: --tokens necesita --weights"},
        {{"exercise", "1", "--file", "no-such-file.cpp"}, "ERROR: --file: el archivo no-such-file.cpp no existe"},
        {{"run", "mha", "--seed", "-1"}, "ERROR: --seed: debe ser un número entero de 0 a 4294967295, no «-1»"},
        {{"compute", "mha", "--in", "x"}, "ERROR: falta --out, que es obligatorio"},
    };
    for (const auto& c : cases) {
        const CommandResult r = run_spanish(c.arguments);
        INFO(c.arguments[0] << "\n" << r.err);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::StartsWith(c.spanish) && Catch::EndsWith("Ejecuta con --help para más información.\n"));
        CHECK_THAT(r.err, !Catch::Contains("Run with") && !Catch::Contains("required") && !Catch::Contains("must be"));
    }
    // In English, CLI11's own words.
    const CommandResult english = run_attn({"lesson"}, environment_with({}));
    CHECK(english.err == "ERROR: lesson is required\nRun with --help for more information.\n");
}

TEST_CASE("cli spanish - unknown lesson, exercise, command, module and language, in Spanish", "[cli][language]") {
    TempDir state;
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"lesson", "77"}, "attn: error: lección desconocida «77»; las lecciones son: 1 dot-product, 2 luong"},
        {{"check", "luong", "nine"}, "attn: error: lección desconocida «nine»; las lecciones son: 1 dot-product"},
        {{"exercise", "77"}, "attn: error: ejercicio desconocido «77»; los ejercicios son: 1 dot-product"},
        {{"frobnicate"}, "attn: error: comando desconocido «frobnicate»; los comandos son: list, lesson"},
        {{"compute", "mah", "--in", "x", "--out", "y"}, "attn: error: módulo desconocido «mah»; los módulos son: dot, luong"},
        {{"bench", "mah"}, "attn: error: módulo desconocido «mah»; los módulos son: mha, encoder-layer"},
        {{"run", "mhx"}, "attn: error: ejemplo desconocido «mhx»; attn run conoce: mha"},
    };
    for (const auto& [arguments, spanish] : cases) {
        const CommandResult r = run_spanish(arguments, {{"ATTN_STATE_DIR", state.path()}});
        INFO(arguments[0] << "\n" << r.err);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::StartsWith(spanish));
        CHECK_THAT(r.err, !Catch::Contains("unknown") && !Catch::Contains(" are: "));
    }
    // The language's own error in the locale's language, though --lang named a wrong one.
    const CommandResult french = run_attn({"lesson", "1", "--lang", "fr"}, environment_with({{"LANG", "es_ES.UTF-8"}}));
    CHECK(french.exit_code == 2);
    CHECK(french.err == "attn: error: --lang fr: idioma desconocido; las opciones son: en, es\n");
    const CommandResult german = run_attn({"list"}, environment_with({{"ATTN_LANG", "de"}, {"LANG", "es_ES.UTF-8"}}));
    CHECK(german.err == "attn: error: ATTN_LANG=de: idioma desconocido; las opciones son: en, es\n");
    // Every command takes --lang.
    for (const std::vector<std::string>& arguments :
         {std::vector<std::string>{"compute", "mha", "--in", "x", "--out", "y"}, {"run", "mha"}, {"bench", "mha"},
          {"heatmap", "--sentence", "a b"}, {"view", "--sentence", "a b"}}) {
        std::vector<std::string> with_lang = arguments;
        with_lang.insert(with_lang.end(), {"--lang", "fr"});
        const CommandResult r = run_attn(with_lang, environment_with({}));
        INFO(arguments[0] << "\n" << r.out << r.err);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("--lang fr: unknown language; the choices are: en, es"));
    }
}

TEST_CASE("cli spanish - attn compute in Spanish: its errors, lesson 5's h-divides-D message, what it wrote", "[cli][language]") {
    TempDir folder;
    const std::string in = folder.path() + "/in", out = folder.path() + "/out";
    // lessons/05-multi-head-attention step 12: D = 4 with h = 3.
    write_mha_inputs(in);

    const CommandResult refused = run_spanish({"compute", "mha", "--in", in, "--out", out, "--heads", "3"});
    INFO(refused.out << refused.err);
    CHECK(refused.exit_code == 2);
    CHECK(refused.err ==
          "attn: error: mha: multi_head_attention: d_model D = 4 (la última dimensión de query (1, 3, 4)) no es múltiplo del "
          "número de cabezas h = 3; cada cabeza recibe d_k = D / h componentes, así que h tiene que dividir a D\n");
    // English: the library's own sentence, word for word.
    const CommandResult english = run_attn({"compute", "mha", "--in", in, "--out", out, "--heads", "3"}, environment_with({}));
    CHECK(english.err ==
          "attn: error: mha: multi_head_attention: d_model D = 4 (the last dimension of query (1, 3, 4)) is not a multiple of "
          "the number of heads h = 3; each head gets d_k = D / h features, so h must divide D\n");

    // No w_o among the inputs: seed 000's block, which --no-output-projection names.
    const CommandResult computed = run_spanish({"compute", "mha", "--in", in, "--out", out, "--heads", "2", "--no-output-projection"});
    INFO(computed.out << computed.err);
    CHECK(computed.exit_code == 0);
    CHECK_THAT(computed.out, Catch::Contains("escrito " + out + "/output.npy  (1, 3, 4) float64") &&
                                 Catch::Contains("escrito " + out + "/weights.npy  (1, 2, 3, 3) float64") && !Catch::Contains("wrote"));

    CHECK(run_spanish({"compute", "mha", "--in", in, "--out", out}).err ==
          "attn: error: mha necesita el número de cabezas: añade --heads h (h debe dividir a la dimensión del modelo D)\n");
    const CommandResult missing = run_spanish({"compute", "mha", "--in", folder.path() + "/none", "--out", out, "--heads", "2"});
    CHECK_THAT(missing.err, Catch::StartsWith("attn: error: la carpeta de entrada " + folder.path() + "/none no existe"));
}

TEST_CASE("cli spanish - attn compute's refusals of PyTorch settings in Spanish, and in English without a language", "[cli][language][slow]") {
    TempDir folder;
    // Four folders of the same mha inputs (no w_o), each with its own trouble.
    const std::string plain = folder.path() + "/plain", alias = folder.path() + "/alias", bias_kv = folder.path() + "/bias_kv",
                      float_mask = folder.path() + "/float_mask", out = folder.path() + "/out";
    for (const auto& in : {plain, alias, bias_kv, float_mask}) write_mha_inputs(in);
    attn::write_npy(alias + "/src_key_padding_mask.npy", {1, 3}, {0, 0, 0}, attn::NpyDtype::float64);
    attn::write_npy(bias_kv + "/bias_k.npy", {1, 1, 4}, std::vector<double>(4, 0.0), attn::NpyDtype::float64);
    attn::write_npy(float_mask + "/key_padding_mask.npy", {1, 3}, {0, 2, 0}, attn::NpyDtype::float64);
    attn::write_npy(float_mask + "/w_o.npy", {4, 4}, std::vector<double>(16, 0.25), attn::NpyDtype::float64);
    struct Case {
        std::vector<std::string> arguments;
        std::string spanish, english;
    };
    const std::vector<Case> cases = {
        {{"mha", "--in", plain, "--heads", "2"},
         "mha: falta el peso «w_o» (el out_proj.weight de PyTorch): dalo, o usa --no-output-projection para un bloque sin "
         "proyección de salida (cuaderno 000)",
         "mha: missing weight 'w_o' (PyTorch's out_proj.weight): give it, or --no-output-projection for a block without an "
         "output projection (seed 000)"},
        {{"mha", "--in", alias, "--heads", "2", "--no-output-projection"},
         alias + "/src_key_padding_mask.npy no es una entrada de mha; ¿querías decir key_padding_mask (la convención de "
         "PyTorch: True/1 = ignorar)? Una máscara o un peso que no se lee cambiaría todos los números sin avisar, así que no "
         "se calculó nada",
         alias + "/src_key_padding_mask.npy is not an input of mha; did you mean key_padding_mask (PyTorch's convention: "
         "True/1 = ignore)? A mask or weight that is not read would change every number silently, so nothing was computed"},
        {{"mha", "--in", bias_kv, "--heads", "2", "--no-output-projection"},
         bias_kv + "/bias_k.npy es el add_bias_kv=True de nn.MultiheadAttention (bias_k, bias_v: una clave y un valor "
         "aprendidos que se añaden al final de cada secuencia); attn no admite add_bias_kv, así que no se calculó nada",
         bias_kv + "/bias_k.npy is nn.MultiheadAttention's add_bias_kv=True (bias_k, bias_v: a learned key and value "
         "appended to every sequence); attn does not support add_bias_kv, so nothing was computed"},
        {{"mha", "--in", float_mask, "--heads", "2"},
         "mha: key_padding_mask (1, 3) contiene 2 en [0, 1]; key_padding_mask es la máscara de relleno de claves de PyTorch, "
         "True/1 = ignorar esta clave (bool o entero), o una máscara float que se suma a las puntuaciones (0 = atender, "
         "-inf = ignorar). Un 1 float se sumaría a las puntuaciones, como lo suma PyTorch: guarda la máscara como bool "
         "(mask.bool()), o como 0 / -inf",
         "mha: key_padding_mask (1, 3) holds 2 at [0, 1]; key_padding_mask is PyTorch's key padding mask, True/1 = ignore "
         "this key (bool or integer), or a float mask added to the scores (0 = attend, -inf = ignore). A float 1 would be "
         "added to the scores, as PyTorch adds it: save the mask as bool (mask.bool()), or as 0 / -inf"},
        {{"encoder-layer", "--in", plain, "--heads", "2", "--activation", "swish"},
         "activación desconocida «swish»; se espera relu, gelu (la forma exacta, con erf) o gelu-tanh (approximate=\"tanh\" "
         "de PyTorch)",
         "unknown activation 'swish'; expected relu, gelu (the exact erf form) or gelu-tanh (PyTorch's approximate=\"tanh\")"},
        {{"self-attention", "--in", plain, "--heads", "2"},
         "self-attention no tiene cabezas: --heads es para mha, encoder-layer, encoder, decoder-layer, decoder, transformer; quítala",
         "self-attention has no heads: --heads is for mha, encoder-layer, encoder, decoder-layer, decoder, transformer; remove it"},
    };
    for (const auto& c : cases) {
        std::vector<std::string> arguments = {"compute"};
        arguments.insert(arguments.end(), c.arguments.begin(), c.arguments.end());
        arguments.insert(arguments.end(), {"--out", out});
        const CommandResult spanish = run_spanish(arguments);
        const CommandResult english = run_attn(arguments, environment_with({}));
        INFO(c.arguments[0] << " " << c.arguments[2] << "\n" << spanish.err << english.err);
        CHECK(spanish.exit_code == 2);
        CHECK(spanish.err == "attn: error: " + c.spanish + "\n");
        CHECK(english.exit_code == 2);
        CHECK(english.err == "attn: error: " + c.english + "\n");
    }
    // --eps 0 is refused while the options are read, quoting the value as typed, in each language.
    const std::vector<std::string> zero_eps = {"compute", "encoder-layer", "--in", plain, "--heads", "2", "--eps", "0",
                                               "--out", out};
    const CommandResult spanish_eps = run_spanish(zero_eps), english_eps = run_attn(zero_eps, environment_with({}));
    CHECK(spanish_eps.exit_code == 2);
    CHECK_THAT(spanish_eps.err, Catch::Contains("--eps: debe ser un número finito mayor que 0, no «0»"));
    CHECK(english_eps.exit_code == 2);
    CHECK_THAT(english_eps.err, Catch::Contains("--eps: must be a finite number greater than 0, not '0'"));
    CHECK_FALSE(std::filesystem::exists(out));  // nothing computed, nothing written
    // The help's closing notes on PyTorch settings, in each language.
    CHECK_THAT(run_spanish({"compute", "--help"}).out,
               Catch::Contains("Ajustes de PyTorch que un state_dict no muestra") && !Catch::Contains("PyTorch settings"));
    CHECK_THAT(run_attn({"compute", "--help"}, environment_with({})).out,
               Catch::Contains("PyTorch settings a state_dict does not show") && !Catch::Contains("Ajustes de PyTorch"));
}

TEST_CASE("cli spanish - attn run, heatmap, view and bench in Spanish, with plural forms for 1 and N", "[cli][language][slow]") {
    const CommandResult run = run_spanish({"run", "mha", "--batch", "1", "--seq", "4", "--d-model", "8", "--heads", "2"});
    INFO(run.out << run.err);
    CHECK(run.exit_code == 0);
    CHECK_THAT(run.out, Catch::Contains("attn run mha: la atención multicabeza del cuaderno 000 sobre entradas aleatorias") &&
                            Catch::Contains("h = 2 cabezas de d_k = 4, semilla 0; sin proyección de salida") &&
                            Catch::Contains("los pesos, por cabeza; cada fila suma 1") && Catch::Contains("multi_head_attention tardó "));
    CHECK_THAT(run.out, !Catch::Contains("heads of") && !Catch::Contains("took") && !Catch::Contains("every row"));

    CHECK_THAT(run_spanish({"run", "mha", "--batch", "1", "--seq", "2", "--d-model", "4", "--heads", "1"}).out,
               Catch::Contains("h = 1 cabeza de d_k = 4, semilla 0;"));
    const CommandResult divides = run_spanish({"run", "mha", "--d-model", "10", "--heads", "3"});
    CHECK(divides.err == "attn: error: run mha: --d-model 10 no es múltiplo de --heads 3; cada cabeza recibe d_k = D / h "
                         "componentes, así que h tiene que dividir a D\n");

    const CommandResult heatmap = run_spanish({"heatmap", "--sentence", "el gato", "--heads", "2", "--d-model", "4"});
    INFO(heatmap.out << heatmap.err);
    CHECK(heatmap.exit_code == 0);
    CHECK_THAT(heatmap.out, Catch::Contains("Estos pesos no están entrenados.") &&
                                Catch::Contains("2 cabezas, d_model 4 (d_k = 2 por cabeza), sin proyección de salida; 2 tokens, separados") &&
                                Catch::Contains("filas: consultas · columnas: claves · cada fila suma 1") &&
                                Catch::Contains("cabeza 0") && Catch::Contains("cabeza 1") && Catch::Contains("  mín ") &&
                                Catch::EndsWith(" máx\n"));
    CHECK_THAT(heatmap.out, !Catch::Contains("head") && !Catch::Contains("rows:") && !Catch::Contains(" min "));
    const CommandResult one_head = run_spanish({"heatmap", "--sentence", "el gato", "--heads", "1", "--d-model", "4"});
    CHECK_THAT(one_head.out, Catch::Contains("\n1 cabeza, d_model 4 (d_k = 4 por cabeza)"));
    const CommandResult one_token = run_spanish({"heatmap", "--sentence", "gato", "--heads", "1", "--d-model", "4"});
    CHECK_THAT(one_token.out, Catch::Contains("salida; 1 token, separado por espacios.\n"));

    TempDir folder;
    const CommandResult view = run_spanish({"view", "--sentence", "el gato duerme", "--heads", "1", "--d-model", "4", "--html",
                                            folder.path() + "/a.html", "--svg", folder.path() + "/a.svg"});
    INFO(view.out << view.err);
    CHECK(view.exit_code == 0);
    CHECK(view.out == "escrito " + folder.path() + "/a.html: 1 cabeza, 3 consultas × 3 claves; ábrelo en un navegador (no necesita red)\n" +
                          "escrito " + folder.path() + "/a.svg: el mapa de calor de la cabeza 0, 3 consultas × 3 claves\n");
    // The page and the picture speak Spanish too: the page's own text, and the words its script writes.
    const std::string page = attn::testing::read_file(folder.path() + "/a.html"), svg = attn::testing::read_file(folder.path() + "/a.svg");
    CHECK_THAT(page, Catch::Contains("<html lang=\"es\">") && Catch::Contains("<h2>Vista de cabezas</h2>") &&
                         Catch::Contains("<h2>Los pesos de cada cabeza</h2>") &&
                         Catch::Contains("\"status\":\"cabeza {1} de 1 · 3 consultas × 3 claves · pasa el ratón") &&
                         Catch::Contains("\"head\":\"cabeza {1}\"") && !Catch::Contains("Head view") && !Catch::Contains("'head '"));
    CHECK_THAT(svg, Catch::Contains(">cabeza 0 de 1 · filas: consultas · columnas: claves · cada fila suma 1</text>") &&
                        Catch::Contains(">peso</text>"));
    const CommandResult two_heads = run_spanish({"view", "--sentence", "el gato", "--heads", "2", "--d-model", "4", "--html",
                                                 folder.path() + "/b.html"});
    CHECK_THAT(two_heads.out, Catch::Contains(": 2 cabezas, 2 consultas × 2 claves;"));
    const CommandResult one_query = run_spanish({"view", "--sentence", "gato", "--heads", "1", "--d-model", "4", "--svg",
                                                 folder.path() + "/one.svg"});
    CHECK(one_query.out == "escrito " + folder.path() + "/one.svg: el mapa de calor de la cabeza 0, 1 consulta × 1 clave\n");
    CHECK(run_spanish({"view", "--sentence", "a"}).err == "attn: error: nada que escribir: da --html salida.html, --svg salida.svg o ambos\n");
    CHECK(run_spanish({"heatmap", "--sentence", " "}).err ==
          "attn: error: la frase está vacía: da al menos una palabra, p. ej. --sentence \"El perro va\"\n");
    CHECK(run_spanish({"view", "--sentence", "a b", "--heads", "1", "--d-model", "4", "--svg", folder.path() + "/c.svg", "--head", "3"}).err ==
          "attn: error: no hay cabeza 3: los pesos tienen 1 cabeza (la 0)\n");

    const CommandResult bench = run_spanish({"bench", "mha", "--batch", "1", "--seq", "8", "--d-model", "8", "--heads", "2",
                                             "--threads", "1", "--repeat", "1", "--warmup", "1"});
    INFO(bench.out << bench.err);
    CHECK(bench.exit_code == 0);
    CHECK_THAT(bench.out, Catch::Contains(" · 1 hilo · pesos guardados · 1 llamada medida tras 1 llamada de calentamiento\n") &&
                              Catch::Contains("  mediana   ") && Catch::Contains("  RSS máx.  "));
    const CommandResult bench_n = run_spanish({"bench", "mha", "--batch", "1", "--seq", "8", "--d-model", "8", "--heads", "2",
                                               "--threads", "2", "--repeat", "2", "--warmup", "0"});
    CHECK_THAT(bench_n.out, Catch::Contains(" · 2 hilos · pesos guardados · 2 llamadas medidas tras 0 llamadas de calentamiento\n"));
    CHECK(run_spanish({"bench", "mha", "--repeat", "0"}).err == "attn: error: --repeat debe valer al menos 1 (se dio 0)\n");
}

TEST_CASE("cli spanish - check lines: «en 1 valor», «en N valores», the lesson's totals feminine", "[cli][language][slow]") {
    const CommandResult spanish = run_spanish({"check", "--width", "200"});
    const CommandResult english = run_attn({"check", "--width", "200"}, environment_with({}));
    INFO(spanish.err);
    REQUIRE(spanish.exit_code == 0);
    // The same number of one-value checks in both languages, each in the singular.
    CHECK(occurrences(english.out, " over 1 value\n") >= 1);
    CHECK(occurrences(spanish.out, " en 1 valor\n") == occurrences(english.out, " over 1 value\n"));
    CHECK(occurrences(spanish.out, " valores\n") == occurrences(english.out, " values\n"));
    CHECK_THAT(spanish.out, Catch::Contains("): coincide · máx |Δ| 0.0e+00 en 4 valores\n") &&
                                !Catch::Contains(" 1 valores") && !Catch::Contains("sobre ") && !Catch::Contains("max |Δ|"));
    CHECK_THAT(english.out, Catch::Contains("): matches · max |Δ| 0.0e+00 over 4 values\n") && !Catch::Contains(" 1 values"));
    // The totals are the last line. (Matched on that line alone: std::regex recurses once per
    // character, and "[^]*" over the whole report overflowed the stack of the sanitizer build.)
    const std::size_t last_line = spanish.out.rfind('\n', spanish.out.size() >= 2 ? spanish.out.size() - 2 : 0);
    CHECK_THAT(spanish.out.substr(last_line == std::string::npos ? 0 : last_line + 1),
               Catch::Matches("[0-9]+ correctas, 0 fallidas\n"));
    // No no-break space reaches the screen: the wrapper turns it into a space.
    CHECK(spanish.out.find("\u00a0") == std::string::npos);
    // At 80 columns "en 4 valores" stays whole: never "en" or "valores" alone at a line's end or start.
    const CommandResult narrow = run_spanish({"check", "--width", "80"});
    CHECK_THAT(narrow.out, !Catch::Contains(" en\n") && !Catch::Contains("\n      valores") && !Catch::Contains("\n      4 valores"));
}

TEST_CASE("cli spanish - attn progress: «1 pista vista», «2 pistas vistas»", "[cli][language]") {
    TempDir state;
    std::filesystem::create_directories(state.path());
    attn::testing::write_file(state.path() + "/progress", "exercise 1 failing shown=1\nexercise 2 failing shown=1,2\nexercise 3 passed shown=\n");
    const CommandResult r = run_spanish({"progress"}, {{"ATTN_STATE_DIR", state.path()}});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("aún no superado (1 pista vista)") && Catch::Contains("aún no superado (2 pistas vistas)") &&
                          !Catch::Contains("1 pistas"));
    const CommandResult english = run_attn({"progress"}, environment_with({{"ATTN_STATE_DIR", state.path()}}));
    CHECK_THAT(english.out, Catch::Contains("not passing yet (1 hint seen)") && Catch::Contains("not passing yet (2 hints seen)"));
}

TEST_CASE("cli spanish - the heat-map legend of a uniform grid, lesson 2 in Spanish", "[cli][language]") {
    const CommandResult r = run_spanish({"lesson", "2", "--no-pause", "--width", "100"});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("  todas las celdas: ") && !Catch::Contains("every cell") && !Catch::Contains(" max\n"));
}

TEST_CASE("cli spanish - the library's file errors a student meets most, in Spanish", "[cli][language]") {
    TempDir folder;
    attn::testing::write_file(folder.path() + "/page.html", "<html></html>\n");
    const std::string missing = folder.path() + "/missing.npy";
    const CommandResult not_there = run_spanish({"heatmap", "--weights", missing});
    CHECK(not_there.exit_code == 2);
    CHECK_THAT(not_there.err, Catch::StartsWith("attn: error: " + missing + ": no se puede abrir: "));
    CHECK(run_spanish({"heatmap", "--weights", folder.path()}).err ==
          "attn: error: " + folder.path() + ": no se puede leer: es una carpeta, no un archivo\n");
    CHECK(run_spanish({"heatmap", "--weights", folder.path() + "/page.html"}).err ==
          "attn: error: " + folder.path() + "/page.html: no es un archivo .npy (no empieza por \\x93NUMPY); guarda los "
          "tensores con numpy.save\n");
    CHECK(run_spanish({"view", "--sentence", "a b", "--html", folder.path() + "/none/page.html"}).err ==
          "attn: error: no se puede escribir --html " + folder.path() + "/none/page.html: la carpeta " + folder.path() + "/none no existe\n");
    // English: the library's own words.
    CHECK_THAT(run_attn({"heatmap", "--weights", missing}, environment_with({})).err,
               Catch::StartsWith("attn: error: " + missing + ": cannot open: "));
}

TEST_CASE("cli spanish - the shape checker's messages in Spanish, the names and shapes as written", "[cli][language]") {
    TempDir folder;
    const std::string disagree = folder.path() + "/disagree", rank = folder.path() + "/rank", out = folder.path() + "/out";
    write_mha_inputs(disagree);
    write_mha_inputs(rank);
    attn::write_npy(disagree + "/w_k.npy", {4, 3}, std::vector<double>(12, 0.25), attn::NpyDtype::float64);
    attn::write_npy(rank + "/query.npy", {3, 4}, std::vector<double>(12, 0.5), attn::NpyDtype::float64);
    for (const auto& in : {disagree, rank}) {
        const std::vector<std::string> arguments = {"compute", "mha", "--in", in, "--heads", "2", "--no-output-projection",
                                                    "--out", out};
        const CommandResult spanish = run_spanish(arguments), english = run_attn(arguments, environment_with({}));
        INFO(spanish.err << english.err);
        CHECK(spanish.exit_code == 2);
        CHECK(english.exit_code == 2);
        if (in == disagree) {
            CHECK_THAT(english.err, Catch::Contains("shapes disagree: ") && Catch::Contains(" has D = 3"));
            CHECK_THAT(spanish.err, Catch::Contains("las formas no concuerdan: ") && Catch::Contains(" tiene D = 3") &&
                                        Catch::Contains("w_k (4, 3) (D, D)") && !Catch::Contains("disagree"));
        } else {
            CHECK_THAT(english.err, Catch::Contains("query has shape (3, 4) (rank 2) but ") && Catch::Contains("needs rank 3"));
            CHECK_THAT(spanish.err, Catch::Contains("query tiene forma (3, 4) (rango 2), pero ") &&
                                        Catch::Contains("necesita rango 3") && !Catch::Contains("needs"));
        }
    }
    CHECK_FALSE(std::filesystem::exists(out));
}
