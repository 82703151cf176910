// Command render draws the Mandelbrot set and writes it as a PNG or JPEG
// image to standard output. scripts/corpus/make.sh uses it to make real images (and,
// built, a real ELF executable) for the benchmark corpus.
//
// Usage:
//
//	go run ./scripts/corpus/render -w 1600 -h 1000 > mandelbrot.png
//	go run ./scripts/corpus/render -format jpeg -q 85 > mandelbrot.jpg
package main

import (
	"bufio"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"os"
)

func main() {
	w := flag.Int("w", 1600, "width in pixels")
	h := flag.Int("h", 1000, "height in pixels")
	iter := flag.Int("iter", 200, "iterations per pixel")
	format := flag.String("format", "png", "image format: png or jpeg")
	quality := flag.Int("q", 85, "JPEG quality, 1 to 100")
	flag.Parse()
	if *w <= 0 || *h <= 0 || *iter <= 0 {
		fmt.Fprintln(os.Stderr, "render: -w, -h and -iter must be positive")
		os.Exit(2)
	}
	img := mandelbrot(*w, *h, *iter)
	out := bufio.NewWriter(os.Stdout)
	var err error
	switch *format {
	case "png":
		err = png.Encode(out, img)
	case "jpeg", "jpg":
		err = jpeg.Encode(out, img, &jpeg.Options{Quality: *quality})
	default:
		fmt.Fprintf(os.Stderr, "render: unknown format %q (want png or jpeg)\n", *format)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "render: encoding the image:", err)
		os.Exit(1)
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "render: writing the image:", err)
		os.Exit(1)
	}
}

// mandelbrot renders the set over [-2.5, 1] x [-1.1, 1.1] with a smooth
// colouring of the escape time.
func mandelbrot(w, h, iter int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for py := 0; py < h; py++ {
		y := -1.1 + 2.2*float64(py)/float64(h)
		for px := 0; px < w; px++ {
			x := -2.5 + 3.5*float64(px)/float64(w)
			img.Set(px, py, shade(escape(complex(x, y), iter), iter))
		}
	}
	return img
}

// escape returns the smoothed iteration count at which c escapes, or iter
// when it does not.
func escape(c complex128, iter int) float64 {
	var z complex128
	for i := 0; i < iter; i++ {
		z = z*z + c
		if r := real(z)*real(z) + imag(z)*imag(z); r > 4 {
			return float64(i) + 1 - math.Log2(math.Log2(r)/2)
		}
	}
	return float64(iter)
}

// shade maps an escape time to a colour: black inside the set, a blue to
// gold ramp outside.
func shade(t float64, iter int) color.RGBA {
	if t >= float64(iter) {
		return color.RGBA{A: 255}
	}
	f := math.Sqrt(t / float64(iter))
	return color.RGBA{
		R: uint8(255 * math.Min(1, 2.2*f)),
		G: uint8(255 * math.Min(1, 1.6*f*f+0.1*f)),
		B: uint8(255 * math.Min(1, 0.35+0.9*f*(1-f))),
		A: 255,
	}
}
