#include "tir/Printer.h"

#include <cctype>
#include <map>
#include <set>
#include <sstream>

namespace tilec::tir {
namespace {

class FunctionPrinter {
public:
  explicit FunctionPrinter(const Function &f) : function_(f) { countHints(f.body()); }

  std::string run() {
    os_ << "func @" << function_.name() << "(";
    const Block &body = function_.body();
    for (unsigned i = 0; i < body.numArguments(); ++i) {
      Value *arg = body.argument(i);
      os_ << (i ? ", " : "") << name(arg) << ": " << arg->type().str();
      if (i < function_.params.size() && function_.params[i].alignment)
        os_ << " {align = " << function_.params[i].alignment << "}";
      else if (i < function_.params.size() && function_.params[i].divisibility)
        os_ << " {divisibility = " << function_.params[i].divisibility << "}";
    }
    os_ << ") attributes {num_warps = " << function_.numWarps;
    for (const ConstexprBinding &c : function_.constexprs)
      os_ << ", " << c.name << " = " << c.value;
    os_ << "} {\n";
    printBlockBody(body, 1);
    os_ << "}\n";
    return os_.str();
  }

private:
  const Function &function_;
  std::ostringstream os_;
  std::map<const Value *, std::string> names_;
  std::map<std::string, int> hintCounts_;
  int next_ = 0;

  void countHints(const Block &block) {
    auto count = [&](const Value *v) {
      if (!v->nameHint().empty())
        ++hintCounts_[v->nameHint()];
    };
    for (unsigned i = 0; i < block.numArguments(); ++i)
      count(block.argument(i));
    for (const auto &op : block.ops()) {
      for (unsigned r = 0; r < op->numResults(); ++r)
        count(op->result(r));
      for (unsigned r = 0; r < op->numRegions(); ++r)
        countHints(op->region(r).block());
    }
  }

  std::string name(const Value *v) {
    auto it = names_.find(v);
    if (it != names_.end())
      return it->second;
    std::string n;
    // A hint that looks like a number would collide with the numbered names.
    const std::string &hint = v->nameHint();
    if (!hint.empty() && hintCounts_[hint] == 1 && !std::isdigit(static_cast<unsigned char>(hint[0])))
      n = "%" + hint;
    else
      n = "%" + std::to_string(next_++);
    names_[v] = n;
    return n;
  }

  static void printAttr(std::ostream &os, const Attribute &a) {
    if (auto *i = std::get_if<int64_t>(&a)) {
      os << *i;
    } else if (auto *d = std::get_if<double>(&a)) {
      std::ostringstream tmp;
      tmp.precision(17);
      tmp << *d;
      std::string s = tmp.str();
      if (s.find_first_of(".eEn") == std::string::npos) // keep floats visibly floats: 2.0 not 2
        s += ".0";
      os << s;
    } else if (auto *b = std::get_if<bool>(&a)) {
      os << (*b ? "true" : "false");
    } else if (auto *s = std::get_if<std::string>(&a)) {
      os << '"';
      for (char c : *s) {
        if (c == '"' || c == '\\')
          os << '\\' << c;
        else if (c == '\n')
          os << "\\n";
        else
          os << c;
      }
      os << '"';
    } else if (auto *v = std::get_if<std::vector<int64_t>>(&a)) {
      os << "[";
      for (size_t i = 0; i < v->size(); ++i)
        os << (i ? ", " : "") << (*v)[i];
      os << "]";
    }
  }

  void indent(int depth) {
    for (int i = 0; i < depth; ++i)
      os_ << "  ";
  }

  void printBlockBody(const Block &block, int depth) {
    for (const auto &op : block.ops())
      printOp(*op, depth);
  }

  void printOp(const Operation &op, int depth) {
    indent(depth);
    if (op.numResults() == 1) {
      os_ << name(op.result(0)) << " = ";
    } else if (op.numResults() > 1) {
      for (unsigned i = 0; i < op.numResults(); ++i)
        os_ << (i ? ", " : "") << name(op.result(i));
      os_ << " = ";
    }
    os_ << op.name();
    for (unsigned i = 0; i < op.numOperands(); ++i)
      os_ << (i ? ", " : " ") << name(op.operand(i));
    if (!op.attrs().empty()) {
      os_ << " {";
      bool first = true;
      for (const auto &[key, value] : op.attrs()) {
        os_ << (first ? "" : ", ") << key << " = ";
        printAttr(os_, value);
        first = false;
      }
      os_ << "}";
    }
    if (op.numResults() > 0) {
      os_ << " : ";
      for (unsigned i = 0; i < op.numResults(); ++i)
        os_ << (i ? ", " : "") << op.result(i)->type().str();
    }
    for (unsigned r = 0; r < op.numRegions(); ++r) {
      const Block &block = op.region(r).block();
      os_ << " {\n";
      indent(depth);
      os_ << "^(";
      for (unsigned a = 0; a < block.numArguments(); ++a)
        os_ << (a ? ", " : "") << name(block.argument(a)) << ": " << block.argument(a)->type().str();
      os_ << "):\n";
      printBlockBody(block, depth + 1);
      indent(depth);
      os_ << "}";
    }
    os_ << "\n";
  }
};

} // namespace

std::string print(const Function &function) { return FunctionPrinter(function).run(); }

std::string print(const Module &module) {
  std::string out;
  for (size_t i = 0; i < module.functions.size(); ++i) {
    if (i)
      out += "\n";
    out += print(*module.functions[i]);
  }
  return out;
}

} // namespace tilec::tir
