"""The course's colours and sizes for graph pictures, in one place.

The palette is built on the Okabe-Ito colours, which stay distinct for the common
kinds of colour blindness. Fills are light tints so black text stays readable; the
border carries the full colour. The same colours mean the same thing in every
notebook (``minigrad.viz.legend()`` draws the key):

=====================  ==================  ===============================
what                   fill / border       like torchviz?
=====================  ==================  ===============================
output tensor          green               yes (torchviz: dark sea green)
leaf tensor/parameter  sky blue            yes (torchviz: light blue)
saved tensor           orange, dashed edge yes (torchviz: orange)
built-in op node       light grey          yes
your Function (ctx)    reddish purple      new
AccumulateGrad         white, blue border  new
retained tensor        yellow              new
current step (trace)   vermillion border   new
=====================  ==================  ===============================
"""
from __future__ import annotations

FONT = "Helvetica,Arial,sans-serif"
DPI = 96  # fixed, so a PNG has the same pixels every time on one machine
MAX_SIZE = "9.5,30"  # inches: at most 912 pixels wide (a notebook's width), 2880 tall
FRAME_SIZE = "4.5,7"  # one frame of a step-by-step trace

# Okabe-Ito colours (full strength) used for borders and highlights.
GREEN = "#009E73"
SKY_BLUE = "#56B4E9"
BLUE = "#0072B2"
ORANGE = "#E69F00"
YELLOW = "#F0E442"
VERMILLION = "#D55E00"
PURPLE = "#CC79A7"
GREY = "#666666"
LIGHT_GREY = "#999999"

# (fill, border) pairs for each kind of box.
OUTPUT = ("#C2E8DA", GREEN)
LEAF = ("#D3EBF9", BLUE)
SAVED = ("#FAE3B0", ORANGE)
RETAINED = ("#F9F4BD", "#A89A00")
BUILTIN = ("#EBEBEB", GREY)
FUNCTION = ("#F1D9E7", PURPLE)
ACCUMULATE = ("#FFFFFF", BLUE)
NON_DIFFERENTIABLE = ("#FFFFFF", LIGHT_GREY)
SUMMARY = ("#F5F5F5", LIGHT_GREY)

EDGE = "#444444"  # gradient edges
NOTE = "#555555"  # small print inside labels
FADED = "#BBBBBB"  # nodes a trace has not reached yet
CURRENT = VERMILLION  # the node a trace step runs, and the gradients it just sent
