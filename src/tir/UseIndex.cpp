#include "tir/UseIndex.h"

#include <algorithm>

namespace tilec::tir {

UseIndex::UseIndex(Block &block) {
  walk(block, [&](Operation &op) { addUser(op); });
}

void UseIndex::addUser(Operation &op) {
  for (Value *operand : op.operands()) {
    std::vector<Operation *> &users = users_[operand];
    // An op that uses a value twice (x * x) is listed once.
    if (users.empty() || users.back() != &op)
      users.push_back(&op);
  }
}

void UseIndex::addOperand(Operation &op, Value *value) {
  op.addOperand(value);
  users_[value].push_back(&op);
}

void UseIndex::setOperand(Operation &op, unsigned i, Value *value) {
  op.setOperand(i, value);
  // Possibly listed twice now, which replaceAllUses tolerates: a search here would be linear in
  // the value's users (a splat used by thousands of ops).
  users_[value].push_back(&op);
}

void UseIndex::replaceAllUses(Value *from, Value *to, const Operation *except) {
  auto found = users_.find(from);
  if (found == users_.end() || from == to)
    return;
  std::vector<Operation *> users = std::move(found->second);
  found->second.clear();
  std::vector<Operation *> &toUsers = users_[to];
  for (Operation *user : users) {
    if (user == except) {
      users_[from].push_back(user);
      continue;
    }
    bool uses = false;
    for (unsigned i = 0; i < user->numOperands(); ++i)
      if (user->operand(i) == from) {
        user->setOperand(i, to);
        uses = true;
      }
    if (uses) // listed under `from` twice, it uses it no more the second time
      toUsers.push_back(user);
  }
}

std::vector<Operation *> UseIndex::usersOf(const Value *value) const {
  std::vector<Operation *> users;
  auto found = users_.find(value);
  if (found == users_.end())
    return users;
  for (Operation *user : found->second) {
    bool uses = false;
    for (const Value *operand : user->operands())
      uses |= operand == value;
    if (uses && std::find(users.begin(), users.end(), user) == users.end())
      users.push_back(user);
  }
  return users;
}

} // namespace tilec::tir
