import Scorecast
