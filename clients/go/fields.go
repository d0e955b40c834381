package doorman

import (
	"reflect"
	"strings"
	"sync"
)

var fieldNameCache sync.Map // reflect.Type -> map[string]struct{}

// jsonFieldNames lists the JSON names of a struct's fields (its `json` tags), so the Extra maps
// hold exactly the fields the struct does not.
func jsonFieldNames(value any) map[string]struct{} {
	t := reflect.TypeOf(value)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if cached, ok := fieldNameCache.Load(t); ok {
		return cached.(map[string]struct{})
	}
	names := map[string]struct{}{}
	for i := 0; i < t.NumField(); i++ {
		field := t.Field(i)
		tag := field.Tag.Get("json")
		if tag == "-" || !field.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = field.Name
		}
		names[name] = struct{}{}
	}
	fieldNameCache.Store(t, names)
	return names
}
