from ..common import BASE

OFFSET = BASE // 50

active = None


def activate(name):
    global active
    active = name


def current():
    return active
